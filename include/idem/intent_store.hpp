#pragma once
/// @file
/// Where every state change of an intent is recorded, so that a process that restarts can resume
/// each intent that is not final with the key it was minted with. The in-memory store is the
/// default; a durable journal implements the same interface.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "idem/classify.hpp"
#include "idem/intent.hpp"
#include "idem/outcome.hpp"

namespace idem {

/// What a store knows about one intent.
struct intent_record {
  intent what;
  /// Fingerprint (SHA-256, never the secret) of the credentials the key was first sent with.
  std::optional<std::string> credentials_fingerprint{};
  std::uint32_t attempts = 0;  ///< attempts started, over all submissions
  std::optional<attempt_class> last_class{};
  /// Some attempt, in any submission, may have reached the server (any class but not_sent):
  /// the intent can never again be reported as not sent.
  bool maybe_sent = false;
  std::optional<outcome_kind> final_kind{};  ///< set once an outcome was reported
};

/// The store interface. The client calls it from its strand, synchronously, on every state
/// change; implementations must be thread-safe (several clients may share one) and quick.
/// Contract: `bind_credentials` is the one decision point for "a key belongs to the credentials
/// it was first sent with"; it must be atomic.
class intent_store {
 public:
  virtual ~intent_store() = default;
  /// Records an intent (a no-op if its key is known already).
  virtual void record_created(const intent& i) = 0;
  /// Binds the key to `fingerprint` if it has no binding yet. True when the key is (now) bound
  /// to `fingerprint`; false when it was first sent with other credentials (refuse to send).
  [[nodiscard]] virtual bool bind_credentials(const idempotency_key& key,
                                              std::string_view fingerprint) = 0;
  virtual void record_attempt_started(const idempotency_key& key) = 0;
  virtual void record_attempt_finished(const idempotency_key& key, attempt_class c) = 0;
  /// Records the outcome of a submission. Succeeded and rejected are final; not_sent and
  /// unresolved leave the intent open for resume.
  virtual void record_outcome(const idempotency_key& key, const outcome& o) = 0;
  /// Intents with no final outcome (never submitted, not sent, unresolved), oldest first.
  [[nodiscard]] virtual std::vector<intent_record> open_intents() const = 0;
  [[nodiscard]] virtual std::optional<intent_record> find(const idempotency_key& key) const = 0;
};

/// True for the kinds after which an intent is over (nothing to resume).
[[nodiscard]] constexpr bool is_final(outcome_kind k) noexcept {
  return k == outcome_kind::succeeded || k == outcome_kind::rejected;
}

/// In-memory store: forgets everything with the process. Thread-safe (one mutex).
class memory_intent_store final : public intent_store {
 public:
  void record_created(const intent& i) override;
  [[nodiscard]] bool bind_credentials(const idempotency_key& key,
                                      std::string_view fingerprint) override;
  void record_attempt_started(const idempotency_key& key) override;
  void record_attempt_finished(const idempotency_key& key, attempt_class c) override;
  void record_outcome(const idempotency_key& key, const outcome& o) override;
  [[nodiscard]] std::vector<intent_record> open_intents() const override;
  [[nodiscard]] std::optional<intent_record> find(const idempotency_key& key) const override;

 private:
  struct entry {
    std::uint64_t seq;
    intent_record record;
  };
  mutable std::mutex mutex_;
  std::unordered_map<std::string, entry> records_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace idem
