#pragma once
/// @file
/// The default intent store: in memory, gone with the process. Final intents are kept whole for
/// a retention window and up to a count; after that only what the key-retention rule needs
/// (key, principal, state, first-sent and final times, a digest of the request: about 200
/// bytes) is remembered for `key_retention`, within `max_remembered` keys, so that the same
/// intent submitted again while the server may still hold its key is answered from the store,
/// never sent blind (contract section 8, "Key retention"). A client that runs for weeks holds
/// its open intents, its recent history and a bounded set of keys.

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "idem/intent_store.hpp"

namespace idem {

/// How long the memory store remembers final intents.
struct memory_store_options {
  /// A final intent is forgotten this long after it became final (measured on the events'
  /// own clock, so virtual time in tests).
  std::chrono::milliseconds retention = std::chrono::hours{1};
  /// At most this many final intents are kept; the oldest go first.
  std::size_t max_final = 10'000;
  /// How long a final intent's key is remembered after it became final, once its details are
  /// forgotten: at least the server's key retention (client_options::server_key_retention,
  /// 24 h by default), here twice that. 0: forgotten with its details.
  std::chrono::milliseconds key_retention = std::chrono::hours{48};
  /// At most this many keys are remembered that way (about 200 bytes each: at most about
  /// 4 MB); the oldest go first. An intent forgotten early by this cap and submitted again is
  /// a new request to the store.
  std::size_t max_remembered = 20'000;
  /// Timeline lines kept per intent (the oldest are dropped past it; the record stays exact).
  std::size_t max_timeline = 64;
};

/// In-memory store: durable only as long as the process (writes complete at once, posted).
/// Open intents are never forgotten. Thread-safe (one mutex); `open_intents` costs
/// O(open intents), not O(all intents).
class memory_intent_store final : public intent_store {
 public:
  explicit memory_intent_store(memory_store_options options = {});
  ~memory_intent_store() override;
  memory_intent_store(const memory_intent_store&) = delete;
  memory_intent_store& operator=(const memory_intent_store&) = delete;

  void async_write(intent_event e, boost::asio::any_io_executor ex, write_handler handler) override;
  void write(intent_event e) override;
  /// True: a write is all the durability this store has.
  [[nodiscard]] bool durable_on_write() const noexcept override { return true; }
  [[nodiscard]] std::optional<intent_record> find(const idempotency_key& key) const override;
  [[nodiscard]] std::vector<intent_record> open_intents() const override;
  [[nodiscard]] std::vector<timeline_entry> timeline(const idempotency_key& key) const override;

  /// Records held whole (open + final not yet forgotten).
  [[nodiscard]] std::size_t size() const;
  /// Final intents whose details are forgotten and whose key is still remembered.
  [[nodiscard]] std::size_t remembered() const;

 private:
  struct state;  // src/store/memory_intent_store.cpp: the records and their indexes
  mutable std::mutex mutex_;
  std::unique_ptr<state> s_;  // guarded by mutex_
};

}  // namespace idem
