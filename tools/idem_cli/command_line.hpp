#pragma once
// The command line of idem-cli (contract section 9): what each subcommand was asked to do, or why
// the request is a usage error (exit status 2).

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace idem::cli {

/// `idem-cli submit`: one intent.
struct submit_args {
  std::string url;
  std::string token;
  std::string method = "POST";
  std::string path;
  std::string data;  ///< the JSON body, validated as JSON by the parser
  std::string business_id;
  std::chrono::milliseconds deadline{30'000};
};

/// `idem-cli load`: N create-order intents (and a payment each with --pay).
struct load_args {
  std::string url;
  std::string token;
  std::size_t orders = 0;
  std::size_t concurrency = 16;
  bool pay = false;
  std::chrono::milliseconds deadline{30'000};
};

/// `idem-cli --help` or `idem-cli help`.
struct help_request {};

/// A bad command line: `message` says what is wrong; the caller prints it with the usage text and
/// exits with status 2.
struct usage_error {
  std::string message;
};

using command = std::variant<submit_args, load_args, help_request, usage_error>;

/// Parses `args` (argv without the program name). Flags take `--name value` or `--name=value`;
/// unknown, repeated or missing flags, bad numbers and bad durations are usage errors. `--journal`
/// and the journal subcommands (`resume`, `journal`) are refused as usage errors until the
/// durable journal exists.
[[nodiscard]] command parse_command_line(const std::vector<std::string>& args);

/// The usage text printed with --help and after a usage error.
[[nodiscard]] const char* usage_text() noexcept;

/// The message for anything that needs the journal.
inline constexpr const char* journal_not_supported =
    "journal support comes with the durable journal";

}  // namespace idem::cli
