#include "idem/intent.hpp"

namespace idem {

intent intent::create(operation op, nlohmann::json payload, business_lookup lookup,
                      key_format format) {
  return restore(idempotency_key::mint(format), std::move(op), std::move(payload),
                 std::move(lookup));
}

intent intent::restore(idempotency_key key, operation op, nlohmann::json payload,
                       business_lookup lookup) {
  // nlohmann::json's default object type keeps keys sorted, so dump() is already canonical:
  // the same payload always gives the same bytes, and so the same server-side fingerprint.
  std::string body = payload.dump();
  return intent(std::make_shared<const data>(
      data{std::move(key), std::move(op), std::move(payload), std::move(body), std::move(lookup)}));
}

std::optional<intent> intent::restore_exact(idempotency_key key, operation op, std::string body,
                                            business_lookup lookup) {
  auto payload = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (payload.is_discarded()) return std::nullopt;
  return intent(std::make_shared<const data>(
      data{std::move(key), std::move(op), std::move(payload), std::move(body), std::move(lookup)}));
}

bool intent::same_request(const intent& other) const noexcept {
  return d_ == other.d_ || (d_->key == other.d_->key && d_->op.method == other.d_->op.method &&
                            d_->op.path == other.d_->op.path && d_->body == other.d_->body);
}

}  // namespace idem
