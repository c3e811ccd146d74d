#pragma once
// The one argument reader of idem's programs (idem-cli, idem-mock-server, idem-soak, idem_perf):
// each program describes its flags and help as a table; parse_flags reads a command line against
// it with CLI11 (command_line.cpp is the only file that includes that large header-only library):
// --help and -h, --version, `--name value` and `--name=value`, commands with a help each. What a
// value means is the program's to read; unknown, repeated, missing and valueless flags are worded
// here, each naming its flag.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace idem::common {

/// How often a flag may be given.
enum class flag_kind : unsigned char {
  optional,    ///< at most once
  required,    ///< exactly once, with a value that is not empty
  repeatable,  ///< any number of times; every value is kept, in order
  last_wins,   ///< any number of times; the last value is kept
};

/// One flag: `--name VALUE`, or `--name` alone when `value` is empty (a switch).
struct flag {
  std::string_view name;   ///< without the dashes
  std::string_view value;  ///< the value's name in the help (its default where it has one)
  std::string_view text;   ///< what it does; lines break with '\n'
  flag_kind kind = flag_kind::optional;
};

/// Flags under one heading of a help ("Options", "Common options").
struct flag_group {
  std::string_view heading;
  std::vector<flag> flags;
};

/// A program's only command (name empty), or one of its commands.
struct command_spec {
  std::string_view name;
  std::string_view summary;  ///< its line in the program's help (commands only)
  std::string_view usage;    ///< the top of its help: the synopsis and what it does
  std::vector<flag_group> flags;
  std::string footer{};  ///< after the flags: notes, exit statuses
};

/// A program: its own usage, flags and footer (`main`) and its commands, if it has any (then its
/// help lists them, and one of them must be given).
struct program_spec {
  std::string_view name;
  std::string_view version;  ///< --version prints "<name> <version>"
  command_spec main;
  std::vector<command_spec> commands{};
};

/// A program without commands: `flags` under "Options" between its usage and its footer.
[[nodiscard]] program_spec program_of(std::string_view name, std::string_view version,
                                      std::string_view usage, std::vector<flag> flags,
                                      std::string footer);

/// Every value given for each flag, in order (a switch: one empty value).
class flag_values {
 public:
  [[nodiscard]] bool has(const std::string& name) const { return values_.count(name) != 0; }
  /// The value of a flag given once ("" if absent).
  [[nodiscard]] std::string get(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? std::string() : it->second.front();
  }
  [[nodiscard]] std::vector<std::string> all(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? std::vector<std::string>() : it->second;
  }
  void add(const std::string& name, std::string value) {
    values_[name].push_back(std::move(value));
  }

 private:
  std::map<std::string, std::vector<std::string>> values_;
};

/// A command line read: the command (empty for a program without commands) and its values.
struct parsed_flags {
  std::string command;
  flag_values values;
};

/// --help, -h, `help [COMMAND]` or --version: `text` goes to stdout, and the program succeeds.
struct help_request {
  std::string text;
};

/// A bad command line: `message` says what is wrong, naming the flag; `hint` what to print after
/// it (usage_hint).
struct usage_error {
  std::string message;
  std::string hint{};
};

/// Reads `args` (argv without the program name) against `program`. Never throws for a bad
/// command line: that is a usage_error ("unknown flag --x", "--x given twice", "missing --x",
/// "--x needs a value", "--x takes no value", "--x must not be empty", "unexpected argument 'y'",
/// "missing command", "unknown command 'y'").
[[nodiscard]] std::variant<parsed_flags, help_request, usage_error> parse_flags(
    const program_spec& program, const std::vector<std::string>& args);

/// What follows a usage error, a few lines: for `command`, where its flags are listed; for a
/// program with commands, its synopsis, its commands and where help is; else its synopsis (the
/// usage's first line and those indented under it) and where its flags are listed.
[[nodiscard]] std::string usage_hint(const program_spec& program, std::string_view command = {});

/// A whole number within [1, max]: digits only.
[[nodiscard]] std::optional<std::size_t> parse_count(std::string_view text, std::size_t max);

}  // namespace idem::common
