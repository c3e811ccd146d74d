#pragma once
/// @file
/// The default intent store: in memory, gone with the process. Final intents are kept for a
/// retention window and up to a count, then forgotten, so a client that runs for weeks holds
/// only its open intents and its recent history.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
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
  struct entry {
    std::uint64_t seq;
    // Owns the bytes of the entry's key in records_ (the intent as created: the record's own
    // may be replaced by a path_bound event). It shares the intent's data, where a string key
    // was a copy (an allocation) per intent.
    intent key_owner;
    // Without its principal: that is `principal`, which the entries of one credential share
    // (a copy per intent was an allocation of each). find() and open_intents() put it back.
    intent_record record;
    std::shared_ptr<const std::string> principal{};
    // The lines after the first. The first (created) is made from key_owner and the record when
    // asked for, not kept: a line less for each of thousands of intents in flight.
    // A vector: an intent has a handful of lines (a deque took 576 bytes for its first one).
    // Without the last line while that is an attempt's start (the one line of an intent in
    // flight): that is `start`, made into a line when asked for or when the next event comes,
    // so that an intent in flight holds no vector (about 110 bytes each, measured).
    std::vector<timeline_entry> timeline{};
    struct pending_start {
      std::uint32_t number;
      wall_time at;
    };
    std::optional<pending_start> start{};
    bool created_line_dropped = false;  // past max_timeline
  };
  [[nodiscard]] static timeline_entry start_line(const entry& en);
  [[nodiscard]] intent_record record_of(const entry& en) const;
  [[nodiscard]] std::shared_ptr<const std::string> principal_locked(const std::string& p);
  void apply_locked(const intent_event& e);
  void forget_expired_locked(wall_time now);

  memory_store_options options_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string_view, entry> records_;  // keys: views of entry::key_owner's
  // Both hold views of a key of records_ (valid until the node is erased).
  std::map<std::uint64_t, std::string_view> open_;             // seq -> key, oldest first
  std::deque<std::pair<wall_time, std::string_view>> finals_;  // in the order they became final
  std::uint64_t next_seq_ = 0;
  std::shared_ptr<const std::string> last_principal_;  // shared by entries made with it
};

}  // namespace idem
