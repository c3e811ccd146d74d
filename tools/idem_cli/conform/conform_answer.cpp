#include "idem_cli/conform/conform_answer.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>
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

// The string or number at `pointer` in `body` (a parsed answer), if any.
std::optional<std::string> id_at(const json& body, const std::string& pointer) {
  if (body.is_discarded() || pointer.empty()) return std::nullopt;
  try {
    const json::json_pointer at(pointer);
    if (body.contains(at)) {
      const json& id = body.at(at);
      if (id.is_string()) return id.get<std::string>();
      if (id.is_number()) return id.dump();
    }
  } catch (const json::exception&) {
    // a pointer this body cannot take: it names nothing here
  }
  return std::nullopt;
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
  if (auto id = named_resource(r, id_pointer)) out += ", id " + *id;
  if (auto marker = replay_marker(r); !marker.empty()) out += ", " + marker;
  if (const std::string* retry = r.response.header("Retry-After")) {
    out += ", Retry-After: " + *retry;
  }
  return out;
}

// The body in lower case, for the words below.
std::string lower_body(const transport_result& r) {
  std::string text = r.response.body;
  for (char& ch : text)
    ch = ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch + 32) : ch;
  return text;
}

bool holds_any(const std::string& text, std::initializer_list<std::string_view> words) {
  return std::ranges::any_of(words,
                             [&](std::string_view w) { return text.find(w) != std::string::npos; });
}

// An answer that says the first request is still running: a problem name or error code some
// profile reads as in progress, Retry-After, Stripe-Should-Retry, or words. The profiles read
// it as if it were a 400: a 409's own reading is the safety rule's, which says nothing.
bool says_in_progress(const transport_result& r) {
  const answer_view as_400{.status = 400, .headers = r.response.headers, .body = r.response.body};
  for (const auto& p : builtin_profiles()) {
    if (p.classify(as_400).cls == attempt_class::in_progress) return true;
  }
  if (r.response.header("Retry-After") != nullptr) return true;
  if (const std::string* retry = r.response.header("Stripe-Should-Retry");
      retry && *retry == "true") {
    return true;
  }
  return holds_any(lower_body(r), {"in progress", "in_progress", "in-progress", "being processed",
                                   "still processing", "concurrent"});
}

// A 4xx whose words are a unique constraint's (web frameworks' and databases' own phrases).
bool says_duplicate(const transport_result& r) {
  const int status = r.response.status;
  if (status < 400 || status > 499) return false;
  return holds_any(lower_body(r), {"already exists", "already exist", "duplicate", "unique",
                                   "already taken", "is taken", "already been"});
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
  if (auto id = id_at(body_json(r), id_pointer)) return id;
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

std::optional<std::string> named_resource(const transport_result& r,
                                          const std::string& id_pointer) {
  if (succeeded(r)) return resource_id(r, id_pointer);
  return answered(r) ? id_at(body_json(r), id_pointer) : std::nullopt;
}

bool carries_first_answer(const transport_result& r, const transport_result& first,
                          const std::string& id_pointer) {
  if (!answered(r) || business_conflict_somewhere(r)) return false;
  if (marked_replayed(r)) return true;
  const json body = body_json(r);
  if (!body.is_discarded() && !r.response.body.empty() && body == body_json(first)) return true;
  const auto id = named_resource(r, id_pointer);
  return id && id == resource_id(first, id_pointer);
}

duplicate_kind classify_duplicate(const transport_result& r, const transport_result* first,
                                  const std::string& id_pointer) {
  if (!answered(r)) return duplicate_kind::other;
  if (succeeded(r)) return duplicate_kind::success;
  if (business_conflict_somewhere(r)) return duplicate_kind::business_conflict;
  if (first ? carries_first_answer(r, *first, id_pointer) : marked_replayed(r)) {
    return duplicate_kind::stored_answer;
  }
  if (says_in_progress(r)) return duplicate_kind::in_progress;
  if (says_duplicate(r)) return duplicate_kind::business_conflict;
  const int status = r.response.status;
  if (status == 409 || status == 425 || status >= 500) return duplicate_kind::ambiguous;
  return duplicate_kind::other;
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
