#pragma once
// What idem-cli's commands and flags are called and what the help says of them (contract section
// 9), as one table: the parser (command_line.cpp) declares the flags to CLI11 from it and checks
// the values given against it, so a flag cannot be accepted without being documented.

#include <span>
#include <string_view>
#include <vector>

namespace idem::cli {

/// One flag: `--name VALUE`, or `--name` alone when `value` is empty (a switch).
struct flag_help {
  std::string_view name;     ///< without the dashes
  std::string_view value{};  ///< the value's name in the help (its default where it has one)
  std::string_view text;     ///< what it does; lines break with '\n'
  bool required = false;
  bool repeatable = false;  ///< only --header and --lookup-match
};

/// Which of the common flags (url, token, deadline, the lookup...) a command takes.
enum class common_flags { none, all, all_but_deadline };

/// One command of idem-cli.
struct command_help {
  std::string_view name;
  std::string_view summary;  ///< one line, in `idem-cli --help`
  std::string_view usage;    ///< the synopsis and what it does: the top of its --help
  std::span<const flag_help> own_flags;
  common_flags common;
  std::span<const std::string_view> footer;  ///< paragraphs after the flags: notes, exit statuses
};

/// Every command, in the order `idem-cli --help` lists them.
[[nodiscard]] std::span<const command_help> commands() noexcept;

/// The command called `name`, or nullptr.
[[nodiscard]] const command_help* find_command(std::string_view name) noexcept;

/// A command's own flags, then the common ones it takes.
[[nodiscard]] std::vector<flag_help> flags_of(const command_help& command);

/// The top of `idem-cli --help`.
[[nodiscard]] std::string_view program_usage() noexcept;

/// The end of `idem-cli --help`, in paragraphs: durations, journals, proxies, the exit statuses.
[[nodiscard]] std::span<const std::string_view> program_footer() noexcept;

/// What follows "missing command" or an unknown command: the commands and where help is, in a few
/// lines (the whole manual is `idem-cli --help`).
[[nodiscard]] std::string_view short_usage() noexcept;

}  // namespace idem::cli
