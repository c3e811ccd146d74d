#include "idem_cli/conform/conform_answer.hpp"

#include <array>
#include <nlohmann/json.hpp>

namespace idem::cli {
namespace {

using json = nlohmann::json;

// The marker names some profile reads (server_profile::replayed).
constexpr std::array<std::string_view, 4> marker_names = {
    "Idempotent-Replayed", "Idempotency-Replayed", "X-Idempotent-Replayed",
    "X-Idempotency-Replayed"};

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

json body_json(const transport_result& r) {
  return json::parse(r.response.body, nullptr, /*allow_exceptions=*/false);
}

// What kind of body a non-JSON answer has, for the table.
std::string body_kind(const transport_result& r) {
  if (r.response.body.empty()) return "empty body";
  const std::string* type = r.response.header("Content-Type");
  if (type && type->find("html") != std::string::npos) return "HTML page";
  if (!body_json(r).is_discarded()) return "JSON";
  return "text body";
}

// A backend's text made safe for a terminal and a table: control characters (escape
// sequences) become '?', and a value longer than a cell's worth is cut.
std::string printable(std::string text) {
  constexpr std::size_t max = 160;
  for (char& ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u == 0x7f) ch = '?';
  }
  if (text.size() > max) text = text.substr(0, max) + "...";
  return text;
}

// What the backend says, as is.
std::string describe_answer(const transport_result& r, const std::string& id_pointer) {
  std::string out = std::to_string(r.response.status);
  if (auto problem = problem_of(r); !problem.empty()) {
    out += " " + problem;
  } else if (!succeeded(r)) {
    out += " (" + body_kind(r) + ")";
  }
  if (auto id = resource_id(r, id_pointer)) out += ", id " + *id;
  if (auto marker = replay_marker(r); !marker.empty()) out += ", " + marker;
  if (const std::string* retry = r.response.header("Retry-After")) {
    out += ", Retry-After: " + *retry;
  }
  return out;
}

}  // namespace

const std::vector<server_profile>& builtin_profiles() {
  static const std::vector<server_profile> all = {server_profile::ietf(), server_profile::stripe(),
                                                  server_profile::generic()};
  return all;
}

bool answered(const transport_result& r) noexcept {
  return !r.ec && r.response.status != 0;
}

bool succeeded(const transport_result& r) noexcept {
  return answered(r) && r.response.status >= 200 && r.response.status <= 299;
}

std::optional<std::string> resource_id(const transport_result& r, const std::string& id_pointer) {
  if (!succeeded(r)) return std::nullopt;
  const json body = body_json(r);
  if (!body.is_discarded() && !id_pointer.empty()) {
    try {
      const json::json_pointer at(id_pointer);
      if (body.contains(at)) {
        const json& id = body.at(at);
        if (id.is_string()) return id.get<std::string>();
        if (id.is_number()) return id.dump();
      }
    } catch (const json::exception&) {
      // a pointer this body cannot take: fall back to Location
    }
  }
  if (const std::string* location = r.response.header("Location")) return *location;
  return std::nullopt;
}

std::string replay_marker(const transport_result& r) {
  for (const auto& [name, value] : r.response.headers) {
    for (std::string_view known : marker_names) {
      if (iequals(name, known)) return std::string(known) + ": " + value;
    }
  }
  return {};
}

bool marked_replayed(const transport_result& r) {
  return answered(r) && server_profile::generic().replayed(r.response.headers);
}

std::string problem_of(const transport_result& r) {
  if (!answered(r) || r.response.status < 400) return {};
  const std::string ietf = meaning_under(server_profile::ietf(), r).problem;
  if (!ietf.empty()) return std::string(problem_name(ietf));
  return meaning_under(server_profile::stripe(), r).problem;
}

answer_meaning meaning_under(const server_profile& profile, const transport_result& r) {
  return profile.classify(answer_view{
      .status = r.response.status, .headers = r.response.headers, .body = r.response.body});
}

bool business_conflict_somewhere(const transport_result& r) {
  if (!answered(r)) return false;
  for (const auto& p : builtin_profiles()) {
    if (meaning_under(p, r).cls == attempt_class::business_conflict) return true;
  }
  return false;
}

std::string describe(const transport_result& r, const std::string& id_pointer) {
  if (!answered(r)) return "no answer (" + r.ec.message() + ")";
  return printable(describe_answer(r, id_pointer));
}

std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? " and " : ", ";
    out += words[i];
  }
  return out;
}

}  // namespace idem::cli
