#include "idem_cli/lookup_choice.hpp"

#include "idem/orders.hpp"

namespace idem::cli {
namespace {

// The pointer to `payload`'s top-level field whose value is `business_id` ("" if none): how a
// record names the business ID when the backend echoes the body's fields.
std::string business_id_field(const nlohmann::json& payload, const std::string& business_id) {
  if (!payload.is_object() || business_id.empty()) return {};
  for (const auto& [name, value] : payload.items()) {
    if (value.is_string() && value.get<std::string>() == business_id) {
      return (nlohmann::json::json_pointer{} / name).to_string();
    }
  }
  return {};
}

}  // namespace

business_lookup order_created_at(const std::string& path, std::string merchant_order_id) {
  business_lookup l = orders::order_created_lookup(std::move(merchant_order_id));
  l.url =
      path + (path.find('?') == std::string::npos ? "?" : "&") + "merchant_order_id={business_id}";
  return l;
}

business_lookup lookup_for(const std::string& path, const std::string& business_id,
                           const nlohmann::json& payload) {
  // C/{id}/payments and C/{id}/cancel: the order at C/{id} tells.
  for (const std::string suffix : {"/payments", "/cancel"}) {
    if (!path.ends_with(suffix)) continue;
    const std::string order = path.substr(0, path.size() - suffix.size());
    const auto slash = order.rfind('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == order.size()) break;
    business_lookup l = suffix == "/payments" ? orders::payment_captured_lookup(business_id)
                                              : orders::order_cancelled_lookup(business_id);
    l.url = order.substr(0, slash) + "/{business_id}";
    return l;
  }
  const bool creates_order =
      path == "/v1/orders" || (payload.is_object() && payload.contains("merchant_order_id") &&
                               payload["merchant_order_id"] == business_id);
  if (creates_order) return order_created_at(path, business_id);
  return business_lookup{.business_id = business_id};
}

business_lookup choose_lookup(const lookup_args& choice, business_lookup preset,
                              const nlohmann::json& payload) {
  if (choice.none) return business_lookup{.business_id = std::move(preset.business_id)};
  if (choice.custom.enabled()) {
    business_lookup custom = choice.custom;
    custom.business_id = std::move(preset.business_id);
    if (custom.identify.empty() && custom.match.empty() && custom.predicate.empty()) {
      custom.identify = business_id_field(payload, custom.business_id);
    }
    return custom;
  }
  return preset;
}

std::string lookup_notice(const lookup_args& choice, const std::string& path,
                          const business_lookup& chosen) {
  if (choice.none) return {};
  if (!chosen.enabled()) {
    return "no lookup by business ID for POST " + path +
           " (only an orders API's paths have one): if every answer to it is lost, it ends "
           "unresolved; give --lookup-url TEMPLATE to look it up, or --lookup none";
  }
  if (choice.custom.enabled() && chosen.identify.empty() && chosen.match.empty() &&
      chosen.predicate.empty()) {
    return "--lookup-url alone cannot tell which record is ours: no field of --data holds the "
           "business ID '" +
           chosen.business_id +
           "'; give --lookup-identify PTR (the record's business ID) or --lookup-match PTR";
  }
  return {};
}

intent with_lookup(const lookup_args& choice, const intent& i) {
  if (!choice.overrides()) return i;
  // The body bytes, not the parsed payload: a journal resends exactly what was first sent.
  auto same = intent::restore_exact(i.key(), i.op(), i.body(),
                                    choose_lookup(choice, i.lookup(), i.payload()));
  return same ? *same : i;
}

}  // namespace idem::cli
