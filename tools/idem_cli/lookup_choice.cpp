#include "idem_cli/lookup_choice.hpp"

#include "idem/orders.hpp"

namespace idem::cli {

business_lookup lookup_for(const std::string& path, const std::string& business_id) {
  const std::string orders = "/v1/orders";
  auto ends_with = [&](const std::string& suffix) {
    return path.size() > suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (path == orders) return orders::order_created_lookup(business_id);
  if (path.rfind(orders + "/", 0) == 0) {
    if (ends_with("/payments")) return orders::payment_captured_lookup(business_id);
    if (ends_with("/cancel")) return orders::order_cancelled_lookup(business_id);
  }
  return business_lookup{.business_id = business_id};
}

business_lookup choose_lookup(const lookup_args& choice, business_lookup preset) {
  if (choice.none) return business_lookup{.business_id = std::move(preset.business_id)};
  if (choice.custom.enabled()) {
    business_lookup custom = choice.custom;
    custom.business_id = std::move(preset.business_id);
    return custom;
  }
  return preset;
}

intent with_lookup(const lookup_args& choice, const intent& i) {
  if (!choice.overrides()) return i;
  // The body bytes, not the parsed payload: a journal resends exactly what was first sent.
  auto same = intent::restore_exact(i.key(), i.op(), i.body(), choose_lookup(choice, i.lookup()));
  return same ? *same : i;
}

}  // namespace idem::cli
