#include "idem/business_lookup.hpp"

#include "util/answer_json.hpp"
#include "util/http_facts.hpp"

namespace idem {
namespace {

using json = nlohmann::json;

// The value at a JSON pointer, or nullptr when the pointer is malformed or names nothing.
const json* at_pointer(const json& j, const std::string& pointer) {
  if (pointer.empty()) return &j;
  if (pointer.front() != '/') return nullptr;
  try {
    const json::json_pointer p(pointer);
    return j.contains(p) ? &j.at(p) : nullptr;
  } catch (const json::exception&) {
    return nullptr;
  }
}

// Ours is contained in theirs: every field we sent is equal where the server has it (a field
// missing on their side is not compared; they may add fields of their own); lists are equal in
// length and element by element.
bool agrees(const json& theirs, const json& ours) {
  if (ours.is_object()) {
    if (!theirs.is_object()) return false;
    for (const auto& [name, value] : ours.items()) {
      auto t = theirs.find(name);
      if (t != theirs.end() && !agrees(*t, value)) return false;
    }
    return true;
  }
  if (ours.is_array()) {
    if (!theirs.is_array() || theirs.size() != ours.size()) return false;
    for (std::size_t i = 0; i < ours.size(); ++i) {
      if (!agrees(theirs[i], ours[i])) return false;
    }
    return true;
  }
  return theirs == ours;  // nlohmann compares numbers by value across integer and float
}

// The text of a scalar, as it would appear in a URL or an id comparison.
std::optional<std::string> scalar_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return v.dump();
  return std::nullopt;
}

// What one record says about the intent: nullopt when it is not about our business ID.
std::optional<record_match> judge_record(const business_lookup& l, const json& payload,
                                         const json& record, const lookup_predicate* predicate) {
  bool proven = false;  // something positively ties the record to our intent
  if (!l.identify.empty()) {
    const json* id = at_pointer(record, l.identify);
    auto text = id ? scalar_text(*id) : std::nullopt;
    if (!text || *text != l.business_id) return std::nullopt;
    proven = true;
  }
  bool differs = false;
  for (const auto& rule : l.match) {
    const json* theirs = at_pointer(record, rule.pointer);
    const json* ours =
        rule.equals ? &*rule.equals
                    : at_pointer(payload, rule.payload_pointer.empty() ? rule.pointer
                                                                       : rule.payload_pointer);
    if (!theirs || !ours) continue;  // missing on either side: not compared
    if (agrees(*theirs, *ours)) {
      proven = true;
    } else {
      differs = true;
    }
  }
  if (!l.predicate.empty()) {
    if (!predicate || !*predicate) return std::nullopt;  // unknown predicate: proves nothing
    const record_match m = (*predicate)(payload, record);
    if (m == record_match::unrelated) return std::nullopt;
    if (m == record_match::other) return record_match::other;
    proven = true;
  }
  if (differs) return record_match::other;
  if (!proven) return std::nullopt;
  return record_match::ours;
}

}  // namespace

json to_json(const business_lookup& l) {
  json rules = json::array();
  for (const auto& r : l.match) {
    json rule = {{"pointer", r.pointer}};
    if (!r.payload_pointer.empty()) rule["payload_pointer"] = r.payload_pointer;
    if (r.equals) rule["equals"] = *r.equals;
    rules.push_back(std::move(rule));
  }
  return {{"url", l.url},
          {"business_id", l.business_id},
          {"select", l.select},
          {"identify", l.identify},
          {"match", std::move(rules)},
          {"conflict_on_other", l.conflict_on_other},
          {"predicate", l.predicate}};
}

std::optional<business_lookup> business_lookup_from_json(const json& j) {
  if (!j.is_object()) return std::nullopt;
  business_lookup l;
  auto text = [&](const char* name, std::string& out) {
    auto it = j.find(name);
    if (it == j.end()) return true;
    if (!it->is_string()) return false;
    out = it->get<std::string>();
    return true;
  };
  if (!text("url", l.url) || !text("business_id", l.business_id) || !text("select", l.select) ||
      !text("identify", l.identify) || !text("predicate", l.predicate)) {
    return std::nullopt;
  }
  if (auto c = j.find("conflict_on_other"); c != j.end()) {
    if (!c->is_boolean()) return std::nullopt;
    l.conflict_on_other = c->get<bool>();
  }
  if (auto m = j.find("match"); m != j.end()) {
    if (!m->is_array()) return std::nullopt;
    for (const auto& r : *m) {
      if (!r.is_object() || !r.contains("pointer") || !r["pointer"].is_string()) {
        return std::nullopt;
      }
      lookup_rule rule{.pointer = r["pointer"].get<std::string>()};
      if (auto p = r.find("payload_pointer"); p != r.end()) {
        if (!p->is_string()) return std::nullopt;
        rule.payload_pointer = p->get<std::string>();
      }
      if (auto e = r.find("equals"); e != r.end()) rule.equals = *e;
      l.match.push_back(std::move(rule));
    }
  }
  return l;
}

std::optional<std::string> expand_lookup_url(const business_lookup& l, const json& payload) {
  if (l.url.empty()) return std::nullopt;
  std::string out;
  std::size_t pos = 0;
  while (pos < l.url.size()) {
    const auto open = l.url.find('{', pos);
    if (open == std::string::npos) {
      out.append(l.url, pos);
      break;
    }
    const auto close = l.url.find('}', open);
    if (close == std::string::npos) return std::nullopt;
    out.append(l.url, pos, open - pos);
    const std::string name = l.url.substr(open + 1, close - open - 1);
    std::optional<std::string> value;
    if (name == "business_id") {
      value = l.business_id;
    } else if (const json* v = at_pointer(payload, name.starts_with('/') ? name : "/" + name)) {
      value = scalar_text(*v);
    }
    if (!value) return std::nullopt;
    out += detail::percent_encode(*value);
    pos = close + 1;
  }
  return out;
}

std::string_view to_string(lookup_verdict v) noexcept {
  switch (v) {
    case lookup_verdict::found:
      return "found";
    case lookup_verdict::not_found:
      return "not_found";
    case lookup_verdict::conflicting:
      return "conflicting";
    case lookup_verdict::retry:
      return "retry";
    case lookup_verdict::inconclusive:
      return "inconclusive";
  }
  return "retry";
}

lookup_judgement judge_lookup(const business_lookup& l, const json& payload, int status,
                              std::string_view body, const lookup_predicate* predicate) {
  // Only these prove absence (contract section 8, "Key retention"): 404 and 410 here, and a
  // readable list without ours below.
  if (status == 404 || status == 410) return {lookup_verdict::not_found, {}};
  // 5xx, 408 and 429 say nothing about the record yet: ask again.
  if (status >= 500 || status == 408 || status == 429) return {lookup_verdict::retry, {}};
  // Any other answer (401 while a token refreshes, a gateway's 403, 400, a redirect to a login
  // page, 204...) will not improve by asking again, and proves nothing either way.
  if (status != 200 && status != 203) return {lookup_verdict::inconclusive, {}};
  const json answer = detail::parse_answer(body);
  // e.g. a proxy's error page, or an answer nested too deep to read safely
  if (answer.is_discarded()) return {lookup_verdict::retry, {}};
  const json* selected = at_pointer(answer, l.select);
  if (!selected || !(selected->is_array() || selected->is_object())) {
    return {lookup_verdict::retry, {}};
  }
  const json* first_ours = nullptr;
  std::size_t ours = 0;
  const json* other = nullptr;
  auto consider = [&](const json& record) {
    if (!record.is_object()) return;
    auto m = judge_record(l, payload, record, predicate);
    if (m == record_match::ours) {
      if (!first_ours) first_ours = &record;
      ++ours;
    } else if (m == record_match::other && !other) {
      other = &record;
    }
  };
  if (selected->is_object()) {
    consider(*selected);
  } else {
    // Every record is read: more than one of ours is a double execution, never silent.
    for (const auto& record : *selected)
      consider(record);
  }
  if (first_ours) return {lookup_verdict::found, first_ours->dump(), ours};
  if (other && l.conflict_on_other) return {lookup_verdict::conflicting, other->dump()};
  return {lookup_verdict::not_found, {}};
}

}  // namespace idem
