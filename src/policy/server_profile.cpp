#include "idem/server_profile.hpp"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <span>

#include "util/http_facts.hpp"

namespace idem {
namespace {

using json = nlohmann::json;

constexpr std::string_view key_mismatch = "idempotency-key-mismatch";
constexpr std::string_view key_missing = "idempotency-key-missing";
constexpr std::string_view key_invalid = "idempotency-key-invalid";
constexpr std::string_view key_misuse = "idempotency-key-misuse";

answer_meaning meaning(attempt_class c, std::string_view error = {}, std::string problem = {}) {
  return answer_meaning{.cls = c, .error = std::string(error), .problem = std::move(problem)};
}

// What every profile agrees on: 2xx, 429, 408, 5xx, 3xx and anything outside the table. A
// response arrived, so the request did reach something that may have acted on it: retrying
// with the same key is safe; calling it rejected could report as failed something that
// happened. Returns nullopt for the 4xx a profile must read itself.
std::optional<attempt_class> common_status(int status) {
  if (status >= 200 && status <= 299) return attempt_class::succeeded;
  if (status == 429) return attempt_class::not_processed;
  if (status == 408) return attempt_class::unknown;  // the server gave up reading, maybe late
  if (status >= 400 && status <= 499) return std::nullopt;
  return attempt_class::unknown;  // 1xx as a final answer, 3xx (no redirect is followed), 5xx
}

answer_meaning ietf_table(const answer_view& a) {
  std::string type = a.status >= 400 ? detail::problem_type_of(a.body) : std::string{};
  const std::string_view name = problem_name(type);
  if (auto c = common_status(a.status)) return meaning(*c, {}, std::move(type));
  if (name == "idempotency-request-in-progress") {
    return meaning(attempt_class::in_progress, {}, std::move(type));
  }
  if (name == "duplicate-business-id") {
    return meaning(attempt_class::business_conflict, {}, std::move(type));
  }
  if (name == key_mismatch || name == key_missing || name == key_invalid) {
    return meaning(attempt_class::client_bug, name, std::move(type));
  }
  answer_meaning m = meaning(attempt_class::rejected, {}, std::move(type));
  m.definite = name == "invalid-state-transition";  // e.g. paying a cancelled order
  return m;
}

// Stripe: {"error": {"type": "...", "code": "...", ...}} and a Stripe-Should-Retry header.
// A string member of `j`, or "" when it is missing or of another type (never throws).
std::string string_member(const json& j, const char* name) {
  auto it = j.find(name);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

answer_meaning stripe_table(const answer_view& a) {
  if (auto c = common_status(a.status); c && a.status < 400) return meaning(*c);
  // Only an error answer carries an error object worth parsing the body for.
  auto body = json::parse(a.body, nullptr, /*allow_exceptions=*/false);
  std::string type;
  std::string code;
  if (body.is_object()) {
    if (auto e = body.find("error"); e != body.end() && e->is_object()) {
      type = string_member(*e, "type");
      code = string_member(*e, "code");
    }
  }
  std::string problem = code.empty() ? type : code;
  const std::string* should_retry = find_header(a.headers, "Stripe-Should-Retry");
  if (a.status >= 400 && should_retry && *should_retry == "true") {
    // Stripe says the same request may succeed later (e.g. a lock timeout): same key, again.
    return meaning(a.status == 409 ? attempt_class::in_progress : attempt_class::unknown, {},
                   std::move(problem));
  }
  if (auto c = common_status(a.status)) return meaning(*c, {}, std::move(problem));
  if (code == "idempotency_key_in_use") {
    return meaning(attempt_class::in_progress, {}, std::move(problem));
  }
  if (type == "idempotency_error") {
    return meaning(attempt_class::client_bug, key_mismatch, std::move(problem));
  }
  if (code == "resource_already_exists") {
    return meaning(attempt_class::business_conflict, {}, std::move(problem));
  }
  return meaning(attempt_class::rejected, {}, std::move(problem));
}

// True when a body (whatever its format) talks about the idempotency key.
bool mentions_idempotency(std::string_view body) {
  constexpr std::string_view word = "idempotency";
  return !std::ranges::search(body, word, [](char x, char y) {
            return detail::ascii_iequals(std::string_view(&x, 1), std::string_view(&y, 1));
          }).empty();
}

// Bare status codes. 409 and 425 are ambiguous (the safety rule makes them in progress); 417
// is express-idempotency's "misuse of the idempotency key"; a 400 or 422 that names the
// idempotency key is a misuse too. A problem+json type, if any, is still read as IETF's.
answer_meaning generic_table(const answer_view& a) {
  answer_meaning ietf = ietf_table(a);
  if (ietf.cls != attempt_class::rejected) return ietf;
  if (a.status == 417) return meaning(attempt_class::client_bug, key_misuse, ietf.problem);
  if ((a.status == 400 || a.status == 422) && mentions_idempotency(a.body)) {
    return meaning(attempt_class::client_bug, key_misuse, ietf.problem);
  }
  return ietf;
}

// The safety rule: a 409 or 425 is never a plain rejection.
answer_meaning guarded(answer_meaning m, int status) {
  if ((status == 409 || status == 425) && m.cls == attempt_class::rejected && !m.definite) {
    m.cls = attempt_class::in_progress;
  }
  return m;
}

}  // namespace

server_profile server_profile::ietf() {
  return server_profile(family::ietf);
}
server_profile server_profile::stripe() {
  return server_profile(family::stripe);
}
server_profile server_profile::generic() {
  return server_profile(family::generic);
}

std::optional<server_profile> server_profile::by_name(std::string_view name) {
  for (auto f : {family::ietf, family::stripe, family::generic}) {
    server_profile p(f);
    if (p.name() == name) return p;
  }
  return std::nullopt;
}

server_profile server_profile::with_classifier(answer_classifier c) const {
  server_profile p = *this;
  if (c) {
    p.custom_ = std::make_shared<const answer_classifier>(std::move(c));
  } else {
    p.custom_.reset();
  }
  return p;
}

std::string_view server_profile::name() const noexcept {
  switch (family_) {
    case family::ietf:
      return "ietf";
    case family::stripe:
      return "stripe";
    case family::generic:
      return "generic";
  }
  return "ietf";
}

answer_meaning server_profile::classify_table(const answer_view& a) const {
  switch (family_) {
    case family::stripe:
      return stripe_table(a);
    case family::generic:
      return generic_table(a);
    case family::ietf:
      break;
  }
  return ietf_table(a);
}

answer_meaning server_profile::classify(const answer_view& a) const {
  if (custom_ && *custom_) {
    if (auto m = (*custom_)(a)) return guarded(std::move(*m), a.status);
  }
  return guarded(classify_table(a), a.status);
}

bool server_profile::replayed(const header_list& headers) const {
  // Idempotent-Replayed is the IETF draft's and Stripe's marker; generic backends use others.
  static constexpr std::array<std::string_view, 4> names = {
      "Idempotent-Replayed", "Idempotency-Replayed", "X-Idempotent-Replayed",
      "X-Idempotency-Replayed"};
  const std::size_t count = family_ == family::generic ? names.size() : 1;
  for (std::string_view name : std::span(names).first(count)) {
    if (const std::string* v = find_header(headers, name); v && detail::ascii_iequals(*v, "true")) {
      return true;
    }
  }
  return false;
}

}  // namespace idem
