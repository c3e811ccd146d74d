#include "business_lookup.hpp"

#include "http_facts.hpp"

namespace idem::detail {
namespace {

using json = nlohmann::json;

// A field that must equal ours; a missing field never matches.
bool same(const json& theirs, const json& ours, const char* field) {
  auto t = theirs.find(field);
  auto o = ours.find(field);
  return t != theirs.end() && o != ours.end() && *t == *o;
}

// Items compared on what we sent (sku, quantity, unit_price_minor), in order; the server may
// add fields of its own.
bool same_items(const json& theirs, const json& ours) {
  auto t = theirs.find("items");
  auto o = ours.find("items");
  if (t == theirs.end() || o == ours.end() || !t->is_array() || !o->is_array()) return false;
  if (t->size() != o->size()) return false;
  for (std::size_t n = 0; n < t->size(); ++n) {
    const auto& ti = (*t)[n];
    const auto& oi = (*o)[n];
    if (!ti.is_object() || !oi.is_object()) return false;
    for (const char* f : {"sku", "quantity", "unit_price_minor"}) {
      if (!same(ti, oi, f)) return false;
    }
  }
  return true;
}

lookup_judgement judge_created(const intent& i, const json& body) {
  auto data = body.find("data");
  if (data == body.end() || !data->is_array()) return {lookup_verdict::retry, {}};
  for (const auto& order : *data) {
    if (!order.is_object() || !same(order, i.payload(), "merchant_order_id")) continue;
    const bool ours = same(order, i.payload(), "amount_minor") &&
                      same(order, i.payload(), "currency") && same_items(order, i.payload());
    return {ours ? lookup_verdict::found : lookup_verdict::conflicting, order.dump()};
  }
  return {lookup_verdict::not_found, {}};
}

lookup_judgement judge_payment(const intent& i, const json& order) {
  auto payments = order.find("payments");
  if (payments == order.end() || !payments->is_array()) return {lookup_verdict::not_found, {}};
  for (const auto& p : *payments) {
    if (!p.is_object()) continue;
    // A declined payment makes no payment row, so any row of ours is a capture; a status other
    // than CAPTURED (e.g. refunded later) still proves that our payment happened.
    if (same(p, i.payload(), "amount_minor") && same(p, i.payload(), "currency")) {
      return {lookup_verdict::found, p.dump()};
    }
  }
  return {lookup_verdict::not_found, {}};
}

}  // namespace

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
  }
  return "retry";
}

std::string lookup_path(const intent& i) {
  const auto& l = i.lookup();
  switch (l.what) {
    case business_lookup::kind::none:
      return {};
    case business_lookup::kind::order_created:
      return "/v1/orders?merchant_order_id=" + percent_encode(l.business_id);
    case business_lookup::kind::payment_captured:
    case business_lookup::kind::order_cancelled:
      return "/v1/orders/" + percent_encode(l.business_id);
  }
  return {};
}

lookup_judgement judge_lookup(const intent& i, const transport_result& r) {
  if (r.failure != transport_failure::none) return {lookup_verdict::retry, {}};
  const int status = r.response.status;
  if (status == 404) return {lookup_verdict::not_found, {}};
  if (status != 200) {
    // 5xx, 408 and 429 say nothing about the order: ask again. Any other answer (401, 400...)
    // will not improve by asking again, and proves nothing: not found.
    if (status >= 500 || status == 408 || status == 429) return {lookup_verdict::retry, {}};
    return {lookup_verdict::not_found, {}};
  }
  auto body = json::parse(r.response.body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) return {lookup_verdict::retry, {}};
  switch (i.lookup().what) {
    case business_lookup::kind::none:
      return {lookup_verdict::not_found, {}};
    case business_lookup::kind::order_created:
      return judge_created(i, body);
    case business_lookup::kind::payment_captured:
      return judge_payment(i, body);
    case business_lookup::kind::order_cancelled: {
      auto st = body.find("status");
      const bool cancelled = st != body.end() && *st == "CANCELLED";
      return {cancelled ? lookup_verdict::found : lookup_verdict::not_found,
              cancelled ? body.dump() : std::string{}};
    }
  }
  return {lookup_verdict::not_found, {}};
}

}  // namespace idem::detail
