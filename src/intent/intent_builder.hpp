#pragma once
// Intents built from body bytes that idem serialised itself (orders::order_body), so known to
// be JSON: restore_exact's check (nlohmann::json::accept, about 1.8 µs for an order's 180
// bytes here) is skipped on the hot path of every create.

#include <memory>
#include <string>
#include <utility>

#include "idem/intent.hpp"
#include "idem/request_body.hpp"

namespace idem::detail {

struct intent_builder {
  /// `i`'s body, shared with it rather than copied (for the requests that send it).
  [[nodiscard]] static request_body body_of(const intent& i) {
    return request_body(std::shared_ptr<const std::string>(i.d_, &i.d_->body));
  }
  /// `body` must be JSON (written by idem, never taken from outside): sent byte for byte.
  [[nodiscard]] static intent from_json_text(idempotency_key key, operation op, std::string body,
                                             business_lookup lookup) {
    return intent(std::make_shared<const intent::data>(std::move(key), std::move(op),
                                                       std::move(body), std::move(lookup)));
  }
  /// The same, with `shared` (whose own business_id is ignored) for its lookup and
  /// `business_id` for the lookup's: intents that are looked up the same way share one.
  [[nodiscard]] static intent from_json_text(idempotency_key key, operation op, std::string body,
                                             std::shared_ptr<const business_lookup> shared,
                                             std::string business_id) {
    return intent(std::make_shared<const intent::data>(
        std::move(key), std::move(op), std::move(body), std::move(shared), std::move(business_id)));
  }
};

}  // namespace idem::detail
