// Which subcommand idem-cli was asked for, and each one's own flags (the options they share are
// read in common_flags.cpp).
#include "idem_cli/command_line/command_line.hpp"

#include <charconv>
#include <cstddef>
#include <fstream>
#include <ios>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "idem_cli/command_line/common_flags.hpp"
#include "idem_cli/command_line/flag_checks.hpp"
#include "idem_cli/command_line/flag_reader.hpp"
#include "idem_cli/conform/conform_request.hpp"

namespace idem::cli {
namespace {

// --concurrency (1 to 10,000), where given: a socket each (the load makes room for them in the
// open-file limit, file_limit.hpp).
std::string read_concurrency(const flag_values& flags, std::size_t& concurrency) {
  if (!flags.has("concurrency")) return {};
  auto c = parse_count(flags.get("concurrency"), 10'000);
  if (!c) return "bad --concurrency '" + flags.get("concurrency") + "' (1 to 10000)";
  concurrency = *c;
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

}  // namespace idem::cli
