#pragma once
/// @file
/// The default intent store: in memory, gone with the process. Final intents are kept for a
/// retention window and up to a count, then forgotten, so a client that runs for weeks holds
/// only its open intents and its recent history.

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

  /// Records held (open + final not yet forgotten).
  [[nodiscard]] std::size_t size() const;

 private:
  struct state;  // src/store/memory_intent_store.cpp: the records and their indexes
  mutable std::mutex mutex_;
  std::unique_ptr<state> s_;  // guarded by mutex_
};

}  // namespace idem
