#pragma once
// Intents built from body bytes that idem serialised itself (orders::order_body), so known to
// be JSON: restore_exact's check (nlohmann::json::accept, about 1.8 µs for an order's 180
// bytes here) is skipped on the hot path of every create.

#include <string>
#include <utility>

#include "idem/intent.hpp"

namespace idem::detail {

struct intent_builder {
  /// `body` must be JSON (written by idem, never taken from outside): sent byte for byte.
  [[nodiscard]] static intent from_json_text(idempotency_key key, operation op, std::string body,
                                             business_lookup lookup) {
    return intent(std::make_shared<const intent::data>(std::move(key), std::move(op),
                                                       std::move(body), std::move(lookup)));
  }
};

}  // namespace idem::detail
