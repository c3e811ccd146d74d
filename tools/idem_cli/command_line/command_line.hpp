#pragma once
// The command line of idem-cli (contract section 9): what each subcommand was asked to do, or why
// the request is a usage error (exit status 2).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "idem/business_lookup.hpp"
#include "idem/http_headers.hpp"
#include "idem_cli/load/load_mix.hpp"

namespace idem::cli {

/// How intents are looked up by business ID when their answers were lost: the preset of their
/// kind (submit: from the path; load: the orders API's, by merchant_order_id), none at all
/// (`--lookup none`), or the lookup given by `--lookup-url` and its companions.
struct lookup_args {
  bool none = false;  ///< --lookup none
  /// --lookup-url TEMPLATE [--lookup-select PTR] [--lookup-identify PTR] [--lookup-match PTR]...
  /// [--lookup-conflict]; its business_id is left empty (each intent brings its own). Not
  /// enabled() (no URL): no custom lookup.
  business_lookup custom{};
  /// Any lookup flag was given: the preset is replaced.
  [[nodiscard]] bool overrides() const noexcept { return none || custom.enabled(); }
};

/// The options `submit`, `load` and `resume` share (contract section 9).
struct common_args {
  std::string url;               ///< http:// or https://, checked with libcurl's URL parser
  std::string token;             ///< sent as `Authorization: Bearer <token>`
  std::string profile = "ietf";  ///< --profile: ietf, stripe or generic
  lookup_args lookup{};
  header_list headers{};  ///< --header 'Name: value', in the order given
  std::string cacert{};   ///< --cacert: a readable PEM bundle; empty: the system's CAs
  std::string key_header = "Idempotency-Key";  ///< --key-header: the header carrying the key
  std::chrono::milliseconds deadline{30'000};
  /// --attempt-timeout; zero: the client's default (10 s). Never more than the deadline.
  std::chrono::milliseconds attempt_timeout{0};
};

/// `idem-cli submit`: one intent.
struct submit_args {
  common_args common;
  std::string method = "POST";
  std::string path;
  std::string data;  ///< the JSON body, validated as JSON by the parser
  std::string business_id;
  std::string journal{};  ///< empty: no journal (the intent lives in memory only)
};

/// `idem-cli load`: N create-order intents (and a payment each with --pay, or what --mix draws).
struct load_args {
  common_args common;
  std::size_t orders = 0;
  std::size_t concurrency = 16;
  bool pay = false;
  std::string path = "/v1/orders";  ///< where the create-order bodies are POSTed
  std::string journal{};  ///< with a journal, the whole plan is written down before the first send
  /// --mix: payments, cancels and double taps drawn per order (load_mix.hpp); not with --pay.
  std::optional<load_mix> mix{};
  std::uint64_t seed = 0;  ///< --seed, for the mix's draws (only with --mix)
};

/// `idem-cli resume`: every intent of a journal that is not final, driven to an end.
struct resume_args {
  common_args common;
  std::string journal;
  std::size_t concurrency = 16;
};

/// `idem-cli journal`: counts over a journal, or one intent's timeline.
struct journal_args {
  std::string journal;
  std::string show{};  ///< a key: print its timeline instead of the counts
};

/// `idem-cli conform`: checks a backend against what idem's guarantees rely on
/// (docs/BACKEND_READINESS.md). Of the common options it takes --url, --token, --profile,
/// --header, --cacert, the lookup flags and --attempt-timeout (per request); not --deadline.
struct conform_args {
  common_args common;
  std::string token2{};  ///< a second principal's token; empty: that check is skipped
  std::string path = "/v1/orders";
  /// --body-file's text, with `{{unique}}` where each request set puts its own value; empty:
  /// the mock server's create-order body.
  std::string body_template{};
  std::string id_pointer = "/id";  ///< --id-pointer: the resource id in a 2xx body
  std::size_t race = 50;           ///< --race: requests in the racing burst (2 to 1000)
  bool json = false;               ///< --json or --format json: the report as JSON
};

/// `--help` (of the program or of one command), `help [COMMAND]` or `--version`: `text` is what
/// to print on stdout before exiting with status 0.
struct help_request {
  std::string text;
};

/// A bad command line: `message` says what is wrong; the caller prints it, then `usage` (the
/// short usage, or where the command's flags are listed), and exits with status 2.
struct usage_error {
  std::string message;
  std::string usage{};
};

using command = std::variant<submit_args, load_args, resume_args, journal_args, conform_args,
                             help_request, usage_error>;

/// Parses `args` (argv without the program name) with CLI11 (the commands and flags of
/// help_text.hpp). Flags take `--name value` or `--name=value`; only --header and --lookup-match
/// may be repeated. Unknown, repeated or missing flags, bad numbers and durations, a URL libcurl
/// cannot parse or that is not http(s), a malformed or forbidden header, an unreadable --cacert
/// file and a bad JSON pointer are usage errors, each naming its flag.
[[nodiscard]] command parse_command_line(const std::vector<std::string>& args);

/// What `idem-cli --help` prints: the commands, durations, the exit statuses.
[[nodiscard]] std::string usage_text();

}  // namespace idem::cli
