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
  return intent(std::make_shared<const data>(std::move(key), std::move(op), payload.dump(),
                                             std::move(lookup)));
}

std::optional<intent> intent::restore_exact(idempotency_key key, operation op, std::string body,
                                            business_lookup lookup) {
  // Checked without building the tree that payload() builds if it is ever asked for.
  if (!nlohmann::json::accept(body)) return std::nullopt;
  return intent(std::make_shared<const data>(std::move(key), std::move(op), std::move(body),
                                             std::move(lookup)));
}

namespace {

// Publishes `made` in `slot` unless another thread published first; what is there after.
template <class T>
const T& publish_once(std::atomic<const T*>& slot, std::unique_ptr<const T> made) {
  const T* expected = nullptr;
  if (slot.compare_exchange_strong(expected, made.get(), std::memory_order_acq_rel,
                                   std::memory_order_acquire)) {
    return *made.release();
  }
  return *expected;  // another thread's, made meanwhile: ours goes
}

}  // namespace

const nlohmann::json& intent::payload() const {
  if (const auto* parsed = d_->payload.load(std::memory_order_acquire)) return *parsed;
  // The body is JSON (created by dump(), or accepted by restore_exact), so this parse succeeds.
  return publish_once(d_->payload, std::make_unique<const nlohmann::json>(nlohmann::json::parse(
                                       d_->body, nullptr, /*allow_exceptions=*/false)));
}

const business_lookup& intent::lookup() const {
  if (!d_->own_business_id) return *d_->lookup;
  // Made on first use only: most intents are never looked up (and a journal reads it once).
  if (const auto* whole = d_->whole_lookup.load(std::memory_order_acquire)) return *whole;
  auto made = std::make_unique<business_lookup>(*d_->lookup);
  made->business_id = d_->business_id;
  return publish_once(d_->whole_lookup, std::unique_ptr<const business_lookup>(std::move(made)));
}

bool intent::same_request(const intent& other) const noexcept {
  return d_ == other.d_ || (d_->key == other.d_->key && d_->op.method == other.d_->op.method &&
                            d_->op.path == other.d_->op.path && d_->body == other.d_->body);
}

}  // namespace idem
