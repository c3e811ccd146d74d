#pragma once
/// @file
/// An intent: one business action (operation + frozen JSON payload) and the idempotency key
/// minted for it, once, at creation. The key and the payload can never be separated or changed:
/// a corrected request is a new intent, with a new key.

#include <atomic>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "idem/business_lookup.hpp"
#include "idem/idempotency_key.hpp"

namespace idem {

namespace detail {
struct intent_builder;  // src/intent/intent_builder.hpp: intents from body bytes idem wrote itself
}  // namespace detail

/// The write an intent performs.
struct operation {
  std::string method = "POST";
  std::string path;  ///< concrete path, e.g. "/v1/orders/ord_1/payments"
};

/// An immutable intent. Copies share the same frozen data (cheap to copy, same key).
/// Thread-safety: immutable; copies may be used from any thread.
class intent {
 public:
  /// Creates a new intent and mints its key (OpenSSL CSPRNG). Every call mints a new key.
  [[nodiscard]] static intent create(operation op, nlohmann::json payload,
                                     business_lookup lookup = {},
                                     key_format format = key_format::uuid_v4);
  /// Rebuilds an intent whose key was minted earlier (read back from a store or journal).
  /// The caller must pass the payload exactly as first sent: the server answers a changed payload
  /// under the same key with 422 idempotency-key-mismatch.
  [[nodiscard]] static intent restore(idempotency_key key, operation op, nlohmann::json payload,
                                      business_lookup lookup = {});
  /// Rebuilds an intent from the exact body bytes it was first sent with (a journal keeps
  /// bytes, so a resume sends byte for byte what the first process sent). nullopt if `body` is
  /// not JSON.
  [[nodiscard]] static std::optional<intent> restore_exact(idempotency_key key, operation op,
                                                           std::string body,
                                                           business_lookup lookup = {});

  [[nodiscard]] const idempotency_key& key() const noexcept { return d_->key; }
  [[nodiscard]] const operation& op() const noexcept { return d_->op; }
  /// The payload, parsed back from body() the first time it is asked for (a lookup compares
  /// against it): an intent keeps only its bytes, so that thousands in flight or retained by a
  /// store cost no JSON tree each. Thread-safe.
  [[nodiscard]] const nlohmann::json& payload() const;
  /// The request body, serialised once so every attempt sends identical bytes.
  [[nodiscard]] const std::string& body() const noexcept { return d_->body; }
  /// How to find the intent's result by business ID. Thread-safe.
  [[nodiscard]] const business_lookup& lookup() const;
  /// lookup().business_id, without making the lookup whole (an intent whose lookup is shared
  /// with others keeps only its own business ID until the lookup is asked for).
  [[nodiscard]] const std::string& business_id() const noexcept {
    return d_->own_business_id ? d_->business_id : d_->lookup->business_id;
  }
  /// lookup() but for its business_id, which here may be another intent's: intents looked up
  /// the same way share one. With business_id(), what a store writes down of the lookup
  /// without making it whole (lookup() makes a shared one whole once: a copy of about 500
  /// bytes the intent then keeps). Valid while the intent (or a copy of it) lives.
  [[nodiscard]] const business_lookup& lookup_shape() const noexcept { return *d_->lookup; }
  /// Same key, operation and body: two objects for the same intent.
  [[nodiscard]] bool same_request(const intent& other) const noexcept;

 private:
  struct data {
    data(idempotency_key k, operation o, std::string b, business_lookup l)
        : key(std::move(k)),
          op(std::move(o)),
          body(std::move(b)),
          lookup(std::make_shared<const business_lookup>(std::move(l))) {}
    // A lookup shared with other intents, but for its business ID.
    data(idempotency_key k, operation o, std::string b,
         std::shared_ptr<const business_lookup> shared, std::string business_id)
        : key(std::move(k)),
          op(std::move(o)),
          body(std::move(b)),
          lookup(std::move(shared)),
          business_id(std::move(business_id)),
          own_business_id(true) {}
    idempotency_key key;
    operation op;
    std::string body;
    // The lookup (about 500 bytes with its strings): whole, or shared by many intents (orders
    // all look theirs up the same way) with `business_id` taking the place of its own.
    std::shared_ptr<const business_lookup> lookup;
    std::string business_id;
    bool own_business_id = false;
    // Made on first use, published once (the first made wins; a thread that lost the race
    // drops its own) and owned here. Not std::call_once: glibc's makes a futex system call
    // every time it completes, one per intent (issue 47).
    mutable std::atomic<const business_lookup*> whole_lookup{nullptr};  // by lookup()
    mutable std::atomic<const nlohmann::json*> payload{nullptr};        // by payload()
    data(const data&) = delete;
    data& operator=(const data&) = delete;
    ~data() {
      delete whole_lookup.load(std::memory_order_acquire);
      delete payload.load(std::memory_order_acquire);
    }
  };
  friend struct detail::intent_builder;
  explicit intent(std::shared_ptr<const data> d) : d_(std::move(d)) {}
  std::shared_ptr<const data> d_;
};

}  // namespace idem
