#include "idem_cli/command_line.hpp"

#include <charconv>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/duration.hpp"
#include "idem/server_profile.hpp"
#include "idem_cli/conform_request.hpp"
#include "idem_cli/flag_checks.hpp"

namespace idem::cli {
namespace {

// The flags one subcommand accepts: those that take a value, those that may be given more than
// once (with a value each), the switches, and the required ones.
struct flag_spec {
  std::set<std::string> valued;
  std::set<std::string> switches;
  std::set<std::string> required;
  std::set<std::string> repeatable{};
};

// Every value given for each flag, in order (a switch: one empty value).
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

// The options common to submit, load and resume (contract section 9).
const std::set<std::string> common_valued = {
    "url",           "token",           "deadline", "profile",      "lookup", "lookup-url",
    "lookup-select", "lookup-identify", "header",   "lookup-match", "cacert", "attempt-timeout"};
const std::set<std::string> common_switches = {"lookup-conflict"};
const std::set<std::string> common_repeatable = {"header", "lookup-match"};
const std::set<std::string> common_required = {"url", "token"};

flag_spec with_common(std::set<std::string> valued, std::set<std::string> switches,
                      std::set<std::string> required) {
  valued.insert(common_valued.begin(), common_valued.end());
  switches.insert(common_switches.begin(), common_switches.end());
  required.insert(common_required.begin(), common_required.end());
  return {.valued = std::move(valued),
          .switches = std::move(switches),
          .required = std::move(required),
          .repeatable = common_repeatable};
}

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
    if (out.has(name) && spec.repeatable.count(name) == 0) return "--" + name + " given twice";
    if (spec.switches.count(name) != 0) {
      if (value) return "--" + name + " takes no value";
      out.add(name, "");
      continue;
    }
    if (spec.valued.count(name) == 0) return "unknown flag --" + name;
    if (!value) {
      if (n + 1 >= args.size()) return "--" + name + " needs a value";
      value = args[++n];
    }
    out.add(name, *value);
  }
  for (const auto& name : spec.required) {
    if (!out.has(name)) return "missing --" + name;
    if (out.get(name).empty()) return "--" + name + " must not be empty";
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

// A positive duration in any form the shared parser accepts (common/duration.hpp, the mock
// server's forms too); an intent or attempt with no time at all could never be sent.
std::string read_duration(const std::string& flag, const std::string& text,
                          std::chrono::milliseconds& out) {
  const auto d = common::parse_duration(text);
  if (!d) return "bad --" + flag + " '" + text + "' (e.g. 30s, 500ms, 1m30s)";
  if (*d <= std::chrono::milliseconds::zero()) return "--" + flag + " must be positive";
  out = *d;
  return {};
}

// --concurrency (1 to 10,000), where given: a socket each (the load makes room for them in the
// open-file limit, file_limit.hpp).
std::string read_concurrency(const flag_values& flags, std::size_t& concurrency) {
  if (!flags.has("concurrency")) return {};
  auto c = parse_count(flags.get("concurrency"), 10'000);
  if (!c) return "bad --concurrency '" + flags.get("concurrency") + "' (1 to 10000)";
  concurrency = *c;
  return {};
}

// --lookup none, or --lookup-url with its companions.
std::string read_lookup(const flag_values& flags, lookup_args& out) {
  const bool custom = flags.has("lookup-url");
  if (flags.has("lookup")) {
    if (flags.get("lookup") != "none") {
      return "bad --lookup '" + flags.get("lookup") + "' (only 'none'; or give --lookup-url)";
    }
    for (const char* name :
         {"lookup-url", "lookup-select", "lookup-identify", "lookup-match", "lookup-conflict"}) {
      if (flags.has(name)) return std::string("--lookup none and --") + name + " contradict";
    }
    out.none = true;
    return {};
  }
  if (!custom) {
    for (const char* name :
         {"lookup-select", "lookup-identify", "lookup-match", "lookup-conflict"}) {
      if (flags.has(name)) return std::string("--") + name + " needs --lookup-url";
    }
    return {};
  }
  business_lookup l;
  l.url = flags.get("lookup-url");
  if (l.url.empty()) return "--lookup-url must not be empty";
  if (l.url.front() != '/') {
    // An absolute URL: its origin must be one the transport can reach (the rest is a template).
    const auto scheme_end = l.url.find("://");
    const auto origin_end = scheme_end == std::string::npos
                                ? std::string::npos
                                : l.url.find_first_of("/?#", scheme_end + 3);
    if (auto error = check_base_url("--lookup-url", l.url.substr(0, origin_end)); !error.empty()) {
      return error + " (a path starting with '/', or an http(s) URL)";
    }
  }
  l.select = flags.get("lookup-select");
  l.identify = flags.get("lookup-identify");
  for (const auto& [flag, pointer] :
       {std::pair<std::string, std::string>{"--lookup-select", l.select},
        {"--lookup-identify", l.identify}}) {
    if (auto error = check_json_pointer(flag, pointer); !error.empty()) return error;
  }
  for (const auto& pointer : flags.all("lookup-match")) {
    if (pointer.empty()) return "--lookup-match must not be empty";
    if (auto error = check_json_pointer("--lookup-match", pointer); !error.empty()) return error;
    l.match.push_back(lookup_rule{.pointer = pointer});
  }
  l.conflict_on_other = flags.has("lookup-conflict");
  out.custom = std::move(l);
  return {};
}

// load's --mix and --seed: the mix replaces --pay; a seed without a mix would mean nothing.
std::string read_mix(const flag_values& flags, load_args& out) {
  if (!flags.has("mix")) return flags.has("seed") ? "--seed needs --mix" : "";
  if (out.pay) return "--pay and --mix contradict (give the payments' share in --mix: pay=1)";
  auto mix = parse_load_mix(flags.get("mix"));
  if (auto* error = std::get_if<std::string>(&mix)) return "bad --mix: " + *error;
  out.mix = std::get<load_mix>(mix);
  if (flags.has("seed")) {
    const std::string text = flags.get("seed");
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, out.seed);
    if (text.empty() || ec != std::errc{} || ptr != end) {
      return "bad --seed '" + text + "' (an integer from 0 to 2^64-1)";
    }
  }
  return {};
}

// The options common to submit, load and resume.
std::string read_common(const flag_values& flags, common_args& out) {
  out.url = flags.get("url");
  out.token = flags.get("token");
  if (auto error = check_base_url("--url", out.url); !error.empty()) return error;
  if (flags.has("deadline")) {
    if (auto error = read_duration("deadline", flags.get("deadline"), out.deadline);
        !error.empty()) {
      return error;
    }
  }
  if (flags.has("attempt-timeout")) {
    std::chrono::milliseconds timeout{};
    if (auto error = read_duration("attempt-timeout", flags.get("attempt-timeout"), timeout);
        !error.empty()) {
      return error;
    }
    out.attempt_timeout = timeout;
  }
  if (flags.has("profile")) {
    out.profile = flags.get("profile");
    if (!server_profile::by_name(out.profile)) {
      return "bad --profile '" + out.profile + "' (ietf, stripe or generic)";
    }
  }
  for (const auto& line : flags.all("header")) {
    std::pair<std::string, std::string> header;
    if (auto error = parse_header_flag(line, header); !error.empty()) return error;
    out.headers.push_back(std::move(header));
  }
  if (flags.has("cacert")) {
    out.cacert = flags.get("cacert");
    if (auto error = check_readable_file("--cacert", out.cacert); !error.empty()) return error;
  }
  return read_lookup(flags, out.lookup);
}

command parse_submit(const std::vector<std::string>& args) {
  const flag_spec spec = with_common({"method", "path", "data", "business-id", "journal"}, {},
                                     {"path", "data", "business-id"});
  flag_values flags;
  if (auto error = read_flags(args, 1, spec, flags); !error.empty()) return usage_error{error};
  submit_args out;
  if (auto error = read_common(flags, out.common); !error.empty()) return usage_error{error};
  out.path = flags.get("path");
  out.data = flags.get("data");
  out.business_id = flags.get("business-id");
  out.journal = flags.get("journal");
  if (flags.has("method")) out.method = flags.get("method");
  if (out.method != "POST") return usage_error{"--method must be POST (submit sends writes)"};
  if (out.path.front() != '/') return usage_error{"--path must start with '/'"};
  if (!nlohmann::json::accept(out.data)) return usage_error{"--data is not valid JSON"};
  return out;
}

command parse_load(const std::vector<std::string>& args) {
  const flag_spec spec =
      with_common({"orders", "concurrency", "journal", "path", "mix", "seed"}, {"pay"}, {"orders"});
  flag_values flags;
  if (auto error = read_flags(args, 1, spec, flags); !error.empty()) return usage_error{error};
  load_args out;
  if (auto error = read_common(flags, out.common); !error.empty()) return usage_error{error};
  out.pay = flags.has("pay");
  out.journal = flags.get("journal");
  auto orders = parse_count(flags.get("orders"), 10'000'000);
  if (!orders) return usage_error{"bad --orders '" + flags.get("orders") + "' (a count >= 1)"};
  out.orders = *orders;
  if (flags.has("path")) {
    out.path = flags.get("path");
    if (out.path.empty() || out.path.front() != '/') {
      return usage_error{"--path must start with '/'"};
    }
  }
  if (auto error = read_concurrency(flags, out.concurrency); !error.empty()) {
    return usage_error{error};
  }
  if (auto error = read_mix(flags, out); !error.empty()) return usage_error{error};
  return out;
}

command parse_resume(const std::vector<std::string>& args) {
  const flag_spec spec = with_common({"journal", "concurrency"}, {}, {"journal"});
  flag_values flags;
  if (auto error = read_flags(args, 1, spec, flags); !error.empty()) return usage_error{error};
  resume_args out;
  if (auto error = read_common(flags, out.common); !error.empty()) return usage_error{error};
  out.journal = flags.get("journal");
  if (auto error = read_concurrency(flags, out.concurrency); !error.empty()) {
    return usage_error{error};
  }
  return out;
}

command parse_journal(const std::vector<std::string>& args) {
  const flag_spec spec{.valued = {"journal", "show"}, .switches = {}, .required = {"journal"}};
  flag_values flags;
  if (auto error = read_flags(args, 1, spec, flags); !error.empty()) return usage_error{error};
  if (flags.has("show") && flags.get("show").empty()) return usage_error{"--show needs a key"};
  return journal_args{.journal = flags.get("journal"), .show = flags.get("show")};
}

// conform's --body-file: a readable file of at most 1 MiB holding a usable body template.
std::string read_body_file(const std::string& path, std::string& out) {
  if (auto error = check_readable_file("--body-file", path); !error.empty()) return error;
  std::ifstream in(path, std::ios::binary);
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::string bad = "bad --body-file '" + path + "': ";
  if (text.size() > 1024 * 1024) return bad + "larger than 1 MiB";
  if (auto error = check_body_template(text); !error.empty()) return bad + error;
  out = std::move(text);
  return {};
}

// conform's own flags (the common ones are read by read_common).
std::string read_conform(const flag_values& flags, conform_args& out) {
  if (flags.has("token2")) {
    out.token2 = flags.get("token2");
    if (out.token2.empty()) return "--token2 must not be empty";
    if (out.token2 == out.common.token) return "--token2 must be another principal's token";
  }
  if (flags.has("path")) {
    out.path = flags.get("path");
    if (out.path.empty() || out.path.front() != '/') return "--path must start with '/'";
  }
  if (flags.has("body-file")) {
    if (auto error = read_body_file(flags.get("body-file"), out.body_template); !error.empty()) {
      return error;
    }
  }
  if (flags.has("id-pointer")) {
    out.id_pointer = flags.get("id-pointer");
    if (auto error = check_json_pointer("--id-pointer", out.id_pointer); !error.empty()) {
      return error;
    }
  }
  if (flags.has("race")) {
    auto n = parse_count(flags.get("race"), 1000);
    if (!n || *n < 2) return "bad --race '" + flags.get("race") + "' (2 to 1000)";
    out.race = *n;
  }
  const std::string format = flags.has("format") ? flags.get("format") : "table";
  if (format != "table" && format != "json") {
    return "bad --format '" + format + "' (table or json)";
  }
  if (flags.has("json") && format == "table" && flags.has("format")) {
    return "--json and --format table contradict";
  }
  out.json = format == "json" || flags.has("json");
  return {};
}

command parse_conform(const std::vector<std::string>& args) {
  flag_spec spec =
      with_common({"token2", "path", "body-file", "id-pointer", "race", "format"}, {"json"}, {});
  spec.valued.erase("deadline");  // each request has its timeout; a check has no intent
  flag_values flags;
  if (auto error = read_flags(args, 1, spec, flags); !error.empty()) return usage_error{error};
  conform_args out;
  if (auto error = read_common(flags, out.common); !error.empty()) return usage_error{error};
  if (auto error = read_conform(flags, out); !error.empty()) return usage_error{error};
  return out;
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
  if (name == "conform") return parse_conform(args);
  return usage_error{"unknown command '" + name + "'"};
}

const char* usage_text() noexcept {
  return R"(usage:
  idem-cli submit --url URL --token T [--method POST] --path /v1/orders --data JSON
                  --business-id X [--journal PATH] [COMMON OPTIONS]
      One intent; prints its outcome as one JSON object. --business-id is the
      merchant_order_id for /v1/orders, the order id for its sub-resources.
  idem-cli load --url URL --token T --orders N [--concurrency 16] [--pay | --mix MIX [--seed S]]
                [--path /v1/orders] [--journal PATH] [COMMON OPTIONS]
      N create-order intents with fresh merchant_order_ids, POSTed to --path (with --pay, a
      payment for each through the mock server's payment route: 2N intents; a payment is
      submitted once its order succeeded, and counts as not_sent if its order did not). Prints
      one JSON summary; a progress bar on stderr if it is a terminal. With --journal the whole
      plan (every key already minted) is written down first.
      --mix pay=0.8,cancel=0.2,double-pay=0.1,double-order=0.05 [--seed S]: instead of --pay,
      what each order gets is drawn from the seed (default 0): a payment, a cancel sent with
      it, a second payment of the same order with a new key (a double tap on "pay"), the same
      cart sent twice with a new key (a double tap on "order"). Double taps end rejected (409)
      or succeeded by lookup; payments and cancels of an order whose create lost to its double
      tap are abandoned.
  idem-cli resume --url URL --token T --journal PATH [--concurrency 16] [COMMON OPTIONS]
      Drives every intent of the journal that is not final to an end, each with its own key,
      under a fresh deadline. Same summary as load. Another token than the journal's: exit 2.
  idem-cli journal --journal PATH [--show KEY]
      {intents, succeeded, rejected, not_sent, unresolved} over the journal, or one intent's
      record and attempt timeline.

  idem-cli conform --url URL --token T [--token2 T2] [--profile P] [--path /v1/orders]
                   [--body-file FILE] [--id-pointer /id] [--race 50] [--json | --format json]
                   [--attempt-timeout 10s] [--header ...] [--cacert ...] [--lookup ...]
      Checks a backend against what idem's guarantees rely on, with real requests (never the
      mock server's admin API): a POST without a key, the same key with the same body and with
      another body, --race requests with one key at once, "in progress" while the first runs,
      the same key from another principal (--token2; skipped without it), a 4xx under a key
      sent again, and the key forms idem mints. Prints a table (check, sent, came back,
      verdict, why it matters, the idem setting it implies) or the same as JSON.
      --body-file: a JSON body with {{unique}} wherever each check puts a value of its own
      (default: the mock server's create-order body, {{unique}} as merchant_order_id).
      --id-pointer: where a 2xx body names the resource it created (else Location).
      The lookup (default for /v1/orders: by merchant_order_id; or --lookup-url ...) also
      counts executions. --attempt-timeout bounds each request (default 10s).
      Exit status: 0 nothing found that breaks exactly-once (warnings and skipped checks
      allowed); 1 some check failed; 3 none failed but some could not be completed (no
      answer); 2 usage error; 4 could not start.

common options (submit, load, resume; conform takes all but --deadline):
  --deadline 30s            the whole budget of each intent, lookup included
  --attempt-timeout 10s     one attempt at most this long (never longer than the deadline)
  --profile ietf|stripe|generic
                            how the backend says in progress, key mismatch, conflict
                            (default ietf, as the mock server speaks it)
  --header 'Name: value'    sent on every request; repeatable. Not Authorization (--token)
                            nor Idempotency-Key (minted per intent); no CR or LF
  --cacert FILE             trust the CAs of this PEM file for https:// (default: the system's)
  --lookup none             never look a result up by business ID (an intent whose answers
                            were all lost then ends unresolved)
  --lookup-url TEMPLATE     look results up with this GET instead of the preset (submit: by
                            path; load: the creates), e.g. '/v1/orders?ref={business_id}';
                            placeholders {business_id}, {field}, {/json/pointer} of the body.
                            resume: every intent resumed gets it (each keeps its business ID);
                            without it, each keeps the lookup it was written down with.
    --lookup-select PTR     where the record (or list of records) is in the answer ("": all)
    --lookup-identify PTR   the business ID in each record ("": every record is about it)
    --lookup-match PTR      a field that must agree between record and body; repeatable
    --lookup-conflict       a record with our business ID that is not ours rejects the intent
  Proxies: libcurl's environment variables (http_proxy, https_proxy, all_proxy, no_proxy).

  Durations: <digits><unit> with unit ms, s, m, h or d, or several of them (1m30s); a bare
  number is seconds; a deadline must be positive. URLs: http:// or https:// only. A journal is
  a SQLite file that one process at a time may use; its commits survive power loss.
  Every outcome other than succeeded is explained on stderr (the last transport error or HTTP
  answer) and, for submit, in the JSON's "error"; load and resume print counts per reason.
  Ctrl-C cancels what is in flight and prints the keys of the unresolved intents.
exit status: 0 every intent succeeded; 1 some rejected, none left open;
             3 some unresolved or not sent; 2 usage error (a bad flag, a malformed URL,
             a journal written with another token); 4 could not start (curl or OpenSSL failed
             to initialise, or the journal could not be opened: in use, damaged, read-only).
)";
}

}  // namespace idem::cli
