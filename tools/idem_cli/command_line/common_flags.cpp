// The options common to every command that talks to a backend, read into common_args.
#include "idem_cli/command_line/common_flags.hpp"

#include <chrono>
#include <string>
#include <utility>

#include "common/duration.hpp"
#include "idem/server_profile.hpp"
#include "idem_cli/command_line/flag_checks.hpp"

namespace idem::cli {
namespace {

using common::flag_values;

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

}  // namespace

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
  if (flags.has("key-header")) out.key_header = flags.get("key-header");
  if (auto error = check_key_header(out.key_header); !error.empty()) return error;
  for (const auto& line : flags.all("header")) {
    std::pair<std::string, std::string> header;
    if (auto error = parse_header_flag(line, header, out.key_header); !error.empty()) return error;
    out.headers.push_back(std::move(header));
  }
  if (flags.has("cacert")) {
    out.cacert = flags.get("cacert");
    if (auto error = check_readable_file("--cacert", out.cacert); !error.empty()) return error;
  }
  return read_lookup(flags, out.lookup);
}

}  // namespace idem::cli
