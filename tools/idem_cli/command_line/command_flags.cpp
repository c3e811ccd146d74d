// Each command's flags read into its arguments (command_flags.hpp); the options they share are
// read in common_flags.cpp.
#include "idem_cli/command_line/command_flags.hpp"

#include <charconv>
#include <cstddef>
#include <fstream>
#include <ios>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "idem_cli/command_line/common_flags.hpp"
#include "idem_cli/command_line/flag_checks.hpp"
#include "idem_cli/conform/conform_request.hpp"

namespace idem::cli {
namespace {

using common::flag_values;
using common::parse_count;

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

command read_submit(const flag_values& flags) {
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

command read_load(const flag_values& flags) {
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

command read_resume(const flag_values& flags) {
  resume_args out;
  if (auto error = read_common(flags, out.common); !error.empty()) return usage_error{error};
  out.journal = flags.get("journal");
  if (auto error = read_concurrency(flags, out.concurrency); !error.empty()) {
    return usage_error{error};
  }
  return out;
}

command read_journal(const flag_values& flags) {
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
std::string read_conform_flags(const flag_values& flags, conform_args& out) {
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

command read_conform_command(const flag_values& flags) {
  conform_args out;
  if (auto error = read_common(flags, out.common); !error.empty()) return usage_error{error};
  if (auto error = read_conform_flags(flags, out); !error.empty()) return usage_error{error};
  return out;
}

}  // namespace

command read_command(std::string_view name, const flag_values& flags) {
  if (name == "submit") return read_submit(flags);
  if (name == "load") return read_load(flags);
  if (name == "resume") return read_resume(flags);
  if (name == "journal") return read_journal(flags);
  return read_conform_command(flags);
}

}  // namespace idem::cli
