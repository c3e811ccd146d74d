#include "idem_cli/command_line.hpp"

#include <charconv>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/duration.hpp"

namespace idem::cli {
namespace {

// The flags one subcommand accepts: those that take a value and those that are switches.
struct flag_spec {
  std::set<std::string> valued;
  std::set<std::string> switches;
  std::set<std::string> required;
};

using flag_values = std::map<std::string, std::string>;

// Reads `--name value`, `--name=value` and `--switch` into `out`; returns an error message or "".
std::string read_flags(const std::vector<std::string>& args, std::size_t first,
                       const flag_spec& spec, flag_values& out) {
  for (std::size_t n = first; n < args.size(); ++n) {
    const std::string& arg = args[n];
    if (arg.rfind("--", 0) != 0 || arg.size() == 2) return "unexpected argument '" + arg + "'";
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    if (out.count(name) != 0) return "--" + name + " given twice";
    if (spec.switches.count(name) != 0) {
      if (value) return "--" + name + " takes no value";
      out[name] = "";
      continue;
    }
    if (spec.valued.count(name) == 0) return "unknown flag --" + name;
    if (!value) {
      if (n + 1 >= args.size()) return "--" + name + " needs a value";
      value = args[++n];
    }
    out[name] = *value;
  }
  for (const auto& name : spec.required) {
    if (out.count(name) == 0) return "missing --" + name;
    if (out[name].empty()) return "--" + name + " must not be empty";
  }
  return {};
}

// A positive count within [1, max].
std::optional<std::size_t> parse_count(const std::string& text, std::size_t max) {
  std::size_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end || value == 0 || value > max) return std::nullopt;
  return value;
}

// --deadline: any duration the shared parser accepts (common/duration.hpp, the mock server's
// forms too), as long as it is positive; an intent with no time at all could never be sent.
std::string read_deadline(const std::string& text, std::chrono::milliseconds& out) {
  const auto d = common::parse_duration(text);
  if (!d) return "bad --deadline '" + text + "' (e.g. 30s, 500ms, 1m30s)";
  if (*d <= std::chrono::milliseconds::zero()) return "--deadline must be positive";
  out = *d;
  return {};
}

// --concurrency (1 to 4096) and --deadline, where given.
std::string read_concurrency_and_deadline(flag_values& flags, std::size_t& concurrency,
                                          std::chrono::milliseconds& deadline) {
  if (flags.count("concurrency") != 0) {
    auto c = parse_count(flags["concurrency"], 4'096);
    if (!c) return "bad --concurrency '" + flags["concurrency"] + "' (1 to 4096)";
    concurrency = *c;
  }
  if (flags.count("deadline") != 0) return read_deadline(flags["deadline"], deadline);
  return {};
}

command parse_submit(const std::vector<std::string>& args) {
  const flag_spec spec{
      .valued = {"url", "token", "method", "path", "data", "business-id", "deadline", "journal"},
      .switches = {},
      .required = {"url", "token", "path", "data", "business-id"}};
  flag_values flags;
  if (auto error = read_flags(args, 1, spec, flags); !error.empty()) return usage_error{error};
  submit_args out;
  out.url = flags["url"];
  out.token = flags["token"];
  out.path = flags["path"];
  out.data = flags["data"];
  out.business_id = flags["business-id"];
  out.journal = flags["journal"];
  if (flags.count("method") != 0) out.method = flags["method"];
  if (out.method != "POST") return usage_error{"--method must be POST (submit sends writes)"};
  if (out.path.front() != '/') return usage_error{"--path must start with '/'"};
  if (!nlohmann::json::accept(out.data)) return usage_error{"--data is not valid JSON"};
  if (flags.count("deadline") != 0) {
    if (auto error = read_deadline(flags["deadline"], out.deadline); !error.empty()) {
      return usage_error{error};
    }
  }
  return out;
}

command parse_load(const std::vector<std::string>& args) {
  const flag_spec spec{.valued = {"url", "token", "orders", "concurrency", "deadline", "journal"},
                       .switches = {"pay"},
                       .required = {"url", "token", "orders"}};
  flag_values flags;
  if (auto error = read_flags(args, 1, spec, flags); !error.empty()) return usage_error{error};
  load_args out;
  out.url = flags["url"];
  out.token = flags["token"];
  out.pay = flags.count("pay") != 0;
  out.journal = flags["journal"];
  auto orders = parse_count(flags["orders"], 10'000'000);
  if (!orders) return usage_error{"bad --orders '" + flags["orders"] + "' (a count >= 1)"};
  out.orders = *orders;
  if (auto error = read_concurrency_and_deadline(flags, out.concurrency, out.deadline);
      !error.empty()) {
    return usage_error{error};
  }
  return out;
}

command parse_resume(const std::vector<std::string>& args) {
  const flag_spec spec{.valued = {"url", "token", "journal", "concurrency", "deadline"},
                       .switches = {},
                       .required = {"url", "token", "journal"}};
  flag_values flags;
  if (auto error = read_flags(args, 1, spec, flags); !error.empty()) return usage_error{error};
  resume_args out;
  out.url = flags["url"];
  out.token = flags["token"];
  out.journal = flags["journal"];
  if (auto error = read_concurrency_and_deadline(flags, out.concurrency, out.deadline);
      !error.empty()) {
    return usage_error{error};
  }
  return out;
}

command parse_journal(const std::vector<std::string>& args) {
  const flag_spec spec{.valued = {"journal", "show"}, .switches = {}, .required = {"journal"}};
  flag_values flags;
  if (auto error = read_flags(args, 1, spec, flags); !error.empty()) return usage_error{error};
  if (flags.count("show") != 0 && flags["show"].empty()) return usage_error{"--show needs a key"};
  return journal_args{.journal = flags["journal"], .show = flags["show"]};
}

}  // namespace

command parse_command_line(const std::vector<std::string>& args) {
  if (args.empty()) return usage_error{"missing command"};
  const std::string& name = args[0];
  if (name == "--help" || name == "-h" || name == "help") return help_request{};
  if (name == "submit") return parse_submit(args);
  if (name == "load") return parse_load(args);
  if (name == "resume") return parse_resume(args);
  if (name == "journal") return parse_journal(args);
  return usage_error{"unknown command '" + name + "'"};
}

const char* usage_text() noexcept {
  return R"(usage:
  idem-cli submit --url URL --token T [--method POST] --path /v1/orders --data JSON
                  --business-id X [--deadline 30s] [--journal PATH]
      One intent; prints its outcome as one JSON object. --business-id is the
      merchant_order_id for /v1/orders, the order id for its sub-resources.
  idem-cli load --url URL --token T --orders N [--concurrency 16] [--pay] [--deadline 30s]
                [--journal PATH]
      N create-order intents with fresh merchant_order_ids (with --pay, a payment for each:
      2N intents; a payment is submitted once its order succeeded, and counts as not_sent if
      its order did not). Prints one JSON summary; a progress bar on stderr if it is a terminal.
      With --journal the whole plan (every key already minted) is written down first.
  idem-cli resume --url URL --token T --journal PATH [--deadline 30s] [--concurrency 16]
      Drives every intent of the journal that is not final to an end, each with its own key,
      under a fresh deadline. Same summary as load. Another token than the journal's: exit 2.
  idem-cli journal --journal PATH [--show KEY]
      {intents, succeeded, rejected, not_sent, unresolved} over the journal, or one intent's
      record and attempt timeline.

  Durations: <digits><unit> with unit ms, s, m, h or d, or several of them (1m30s); a bare
  number is seconds; a deadline must be positive. A journal is a SQLite file that one process
  at a time may use; its commits survive power loss.
exit status: 0 every intent succeeded; 1 some rejected, none left open;
             3 some unresolved or not sent; 2 usage error (also: a journal written with
             another token); 4 could not start (curl or OpenSSL failed to initialise, or the
             journal could not be opened: in use, damaged, read-only).
)";
}

}  // namespace idem::cli
