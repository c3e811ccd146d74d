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
  std::string journal{};  ///< empty: no journal (the intent lives in memory only)
};

/// `idem-cli load`: N create-order intents (and a payment each with --pay).
struct load_args {
  std::string url;
  std::string token;
  std::size_t orders = 0;
  std::size_t concurrency = 16;
  bool pay = false;
  std::chrono::milliseconds deadline{30'000};
  std::string journal{};  ///< with a journal, the whole plan is written down before the first send
};

/// `idem-cli resume`: every intent of a journal that is not final, driven to an end.
struct resume_args {
  std::string url;
  std::string token;
  std::string journal;
  std::size_t concurrency = 16;
  std::chrono::milliseconds deadline{30'000};
};

/// `idem-cli journal`: counts over a journal, or one intent's timeline.
struct journal_args {
  std::string journal;
  std::string show{};  ///< a key: print its timeline instead of the counts
};

/// `idem-cli --help` or `idem-cli help`.
struct help_request {};

/// A bad command line: `message` says what is wrong; the caller prints it with the usage text and
/// exits with status 2.
struct usage_error {
  std::string message;
};

using command =
    std::variant<submit_args, load_args, resume_args, journal_args, help_request, usage_error>;

/// Parses `args` (argv without the program name). Flags take `--name value` or `--name=value`;
/// unknown, repeated or missing flags, bad numbers and bad durations are usage errors.
[[nodiscard]] command parse_command_line(const std::vector<std::string>& args);

/// The usage text printed with --help and after a usage error.
[[nodiscard]] const char* usage_text() noexcept;

}  // namespace idem::cli
