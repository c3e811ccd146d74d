#include "idem/memory_intent_store.hpp"

#include <algorithm>
#include <boost/asio/append.hpp>
#include <boost/asio/post.hpp>
#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>

#include "store/compact_intent_record.hpp"
#include "util/hashed_key.hpp"
#include "util/request_digest.hpp"

namespace idem {

// Every byte here is paid by each of thousands of intents in flight: an intent in flight
// costs the store one node of records_ (tests/idem/store/memory_intent_store_footprint_test.cpp).
struct memory_intent_store::state {
  struct entry;
  // The open entries, oldest first, linked through the entries themselves (an unordered_map's
  // nodes never move): two pointers an entry, where an ordered map took a 64-byte node each.
  struct open_link {
    entry* older = nullptr;
    entry* newer = nullptr;
  };
  struct entry {
    entry(intent k, detail::compact_intent_record r)
        : key_owner(std::move(k)), record(std::move(r)) {}
    // Owns the bytes of the entry's key in records_ (the intent as created: the record's own
    // may be replaced by a path_bound event). It shares the intent's data, where a string key
    // was a copy (an allocation) per intent.
    intent key_owner;
    // Without its principal: that is `principal`, which the entries of one credential share
    // (a copy per intent was an allocation of each). record_of() puts it back. Compact: an
    // intent in flight leaves most of a record's strings empty.
    detail::compact_intent_record record;
    std::shared_ptr<const std::string> principal{};
    // The lines after the first. The first (created) is made from key_owner and the record
    // when asked for, not kept: a line less for each of thousands of intents in flight.
    // A vector: an intent has a handful of lines (a deque took 576 bytes for its first one).
    // Without the last line while that is an attempt's start (the one line of an intent in
    // flight): that is the pending start, made into a line when asked for or when the next
    // event comes, so that an intent in flight holds no vector (about 110 bytes each).
    std::vector<timeline_entry> timeline{};
    wall_time start_at{};
    std::uint32_t start_number = 0;     // of the pending start; 0: none (attempts count from 1)
    bool created_line_dropped = false;  // past max_timeline
    open_link open{};
  };

  // A final intent past the retention window: what the key-retention rule needs of it
  // (memory_store_options::key_retention). About 200 bytes with its node and key.
  struct remembered_key {
    std::uint64_t request_digest = 0;
    wall_time created_at{};
    wall_time finished_at{};
    std::optional<wall_time> first_attempt_at{};
    std::uint32_t attempts = 0;
    std::uint32_t principal = 0;  // index into principals
    int final_status = 0;
    std::optional<outcome_kind> last_outcome{};
    intent_state state = intent_state::succeeded;
    bool reached_server = false;
  };

  explicit state(memory_store_options o) : options(o) {}

  // `e` is the store's own copy: a created event's principal is moved out of it.
  void apply(intent_event& e);
  // The timeline lines an event on an existing entry makes (the start line comes with the
  // attempt's next event).
  static void add_lines(entry& en, const intent_event& e);
  void forget_expired(wall_time now);
  // The entry of `key` is going: keeps what the key-retention rule needs of it, if it may.
  void remember(const detail::hashed_key& key, const entry& en, wall_time now);
  [[nodiscard]] std::optional<intent_record> remembered_record(const std::string& key) const;
  void link_open(entry& en) noexcept;
  void unlink_open(entry& en) noexcept;
  [[nodiscard]] std::shared_ptr<const std::string> shared_principal(const std::string& p);
  [[nodiscard]] static intent_record record_of(const entry& en);
  [[nodiscard]] static timeline_entry start_line(const entry& en);

  memory_store_options options;
  // Keys: views of entry::key_owner's.
  std::unordered_map<detail::hashed_key, entry, detail::hashed_key_hash> records;
  open_link open_ends{};  // .older: the oldest open entry, .newer: the newest
  std::size_t open_count = 0;
  // Keys of records (valid until the node is erased), in the order they became final.
  std::deque<std::pair<wall_time, detail::hashed_key>> finals;
  std::shared_ptr<const std::string> last_principal;  // shared by entries made with it
  // Remembered keys, and the order they go in (oldest final first; views of the map's keys).
  std::unordered_map<std::string, remembered_key, detail::text_hash> remembered;
  std::deque<std::pair<wall_time, std::string_view>> remembered_order;
  std::vector<std::string> principals;  // of remembered keys: an app has one or a few
};

memory_intent_store::memory_intent_store(memory_store_options options)
    : s_(std::make_unique<state>(options)) {}

memory_intent_store::~memory_intent_store() = default;

void memory_intent_store::async_write(intent_event e, boost::asio::any_io_executor ex,
                                      write_handler handler) {
  write(std::move(e));
  // Durable as far as this store goes: done. Still posted, never inline.
  boost::asio::post(ex, boost::asio::append(std::move(handler), std::error_code{}));
}

void memory_intent_store::write(intent_event e) {
  std::lock_guard lock(mutex_);
  s_->apply(e);
}

std::shared_ptr<const std::string> memory_intent_store::state::shared_principal(
    const std::string& p) {
  // One client's intents all carry its one principal: the last one seen is nearly always it.
  if (!last_principal || *last_principal != p) last_principal = std::make_shared<std::string>(p);
  return last_principal;
}

void memory_intent_store::state::link_open(entry& en) noexcept {
  en.open = open_link{.older = open_ends.newer, .newer = nullptr};
  (open_ends.newer ? open_ends.newer->open.newer : open_ends.older) = &en;
  open_ends.newer = &en;
  ++open_count;
}

void memory_intent_store::state::unlink_open(entry& en) noexcept {
  (en.open.older ? en.open.older->open.newer : open_ends.older) = en.open.newer;
  (en.open.newer ? en.open.newer->open.older : open_ends.newer) = en.open.older;
  en.open = open_link{};
  --open_count;
}

void memory_intent_store::state::apply(intent_event& e) {
  const detail::hashed_key event_key(key_of(e).str());
  auto it = records.find(event_key);
  const bool made = it == records.end();
  if (made) {
    auto* c = std::get_if<events::created>(&e);
    if (!c) return;  // an event for an intent this store never saw (or already forgot)
    // The record is made without the principal (moved out of the event): entries share it,
    // and make_record's copy of it was an allocation per intent, freed at once.
    const std::string principal_text = std::move(c->principal);
    intent_record r = make_record(*c);
    auto principal = shared_principal(principal_text);
    // event_key views c->what's key, and copies of an intent share its data: the view stays
    // valid while the entry holds one.
    it = records.try_emplace(event_key, c->what, detail::compact_intent_record(std::move(r))).first;
    it->second.principal = std::move(principal);
    if (it->second.record.is_open()) link_open(it->second);
  }
  entry& en = it->second;
  const bool keeps_keys = options.key_retention.count() > 0 && options.max_remembered > 0;
  if (!made && options.max_final == 0 && !keeps_keys && en.record.closed_by(e)) {
    // A store that keeps no finals forgets an entry the moment an event ends it: the event is
    // not applied only to be dropped (the final answer's body was copied into the record, and
    // timeline lines made, then all of it freed at once).
    unlink_open(en);
    records.erase(it);
    return;
  }
  const bool was_open = en.record.is_open();
  if (!made) {
    en.record.apply(e);
    add_lines(en, e);
  }
  const std::size_t lines =
      en.timeline.size() + (en.start_number != 0 ? 1 : 0) + (en.created_line_dropped ? 0 : 1);
  if (lines > options.max_timeline) {
    std::size_t excess = lines - options.max_timeline;
    if (!en.created_line_dropped) {
      en.created_line_dropped = true;
      --excess;
    }
    const std::size_t from_vector = std::min(excess, en.timeline.size());
    en.timeline.erase(en.timeline.begin(),
                      en.timeline.begin() + static_cast<std::ptrdiff_t>(from_vector));
    if (excess > from_vector) en.start_number = 0;  // a cap of zero lines
  }
  if (was_open && !en.record.is_open()) {
    unlink_open(en);
    const wall_time at = en.record.finished_at().value_or(wall_time{});
    finals.emplace_back(at, it->first);
    forget_expired(at);
  }
}

void memory_intent_store::state::add_lines(entry& en, const intent_event& e) {
  const auto push = [&en](timeline_entry line) {
    // Started, finished and the outcome: the lines of most intents, made as the attempt ends.
    if (en.timeline.capacity() == 0) en.timeline.reserve(3);
    en.timeline.push_back(std::move(line));
  };
  if (en.start_number != 0) {
    push(start_line(en));
    en.start_number = 0;
  }
  if (const auto* s = std::get_if<events::attempt_started>(&e); s && s->number != 0) {
    en.start_number = s->number;
    en.start_at = s->at;
  } else {
    push(timeline_of(e));
  }
}

intent_record memory_intent_store::state::record_of(const entry& en) {
  return en.record.expand(*en.principal);
}

void memory_intent_store::state::forget_expired(wall_time now) {
  // Finals are queued in the order they became final, so the oldest are at the front.
  while (!finals.empty() &&
         (finals.size() > options.max_final || finals.front().first + options.retention <= now)) {
    const auto it = records.find(finals.front().second);
    finals.pop_front();
    remember(it->first, it->second, now);
    records.erase(it);
  }
  while (!remembered_order.empty() &&
         (remembered_order.size() > options.max_remembered ||
          remembered_order.front().first + options.key_retention <= now)) {
    remembered.erase(std::string(remembered_order.front().second));
    remembered_order.pop_front();
  }
}

void memory_intent_store::state::remember(const detail::hashed_key& key, const entry& en,
                                          wall_time now) {
  const intent_record r = record_of(en);
  const wall_time finished = r.finished_at.value_or(now);
  if (options.max_remembered == 0 || finished + options.key_retention <= now) return;
  auto p = std::find(principals.begin(), principals.end(), r.principal);
  if (p == principals.end()) p = principals.insert(principals.end(), r.principal);
  const auto& op = r.what.op();
  auto [it, made] = remembered.try_emplace(
      std::string(key.text),
      remembered_key{.request_digest = detail::request_digest(op.method, op.path, r.what.body()),
                     .created_at = r.created_at,
                     .finished_at = finished,
                     .first_attempt_at = r.first_attempt_at,
                     .attempts = r.attempts,
                     .principal = static_cast<std::uint32_t>(p - principals.begin()),
                     .final_status = r.final_status,
                     .last_outcome = r.last_outcome,
                     .state = r.state,
                     .reached_server = r.maybe_sent()});
  if (made) remembered_order.emplace_back(finished, it->first);
}

std::optional<intent_record> memory_intent_store::state::remembered_record(
    const std::string& key) const {
  const auto it = remembered.find(key);
  if (it == remembered.end()) return std::nullopt;
  auto parsed = idempotency_key::from_string(key);
  if (!parsed) return std::nullopt;
  const remembered_key& k = it->second;
  intent_record r{.what = intent::restore(std::move(*parsed), operation{}, nlohmann::json())};
  r.principal = principals[k.principal];
  r.created_at = k.created_at;
  r.first_attempt_at = k.first_attempt_at;
  r.finished_at = k.finished_at;
  r.attempts = k.attempts;
  r.attempts_finished = k.attempts;
  r.reached_server = k.reached_server;
  r.state = k.state;
  r.last_outcome = k.last_outcome;
  r.final_status = k.final_status;
  r.details_forgotten = true;
  r.request_digest = k.request_digest;
  return r;
}

std::optional<intent_record> memory_intent_store::find(const idempotency_key& key) const {
  std::lock_guard lock(mutex_);
  auto it = s_->records.find(detail::hashed_key(key.str()));
  if (it == s_->records.end()) return s_->remembered_record(key.str());
  return state::record_of(it->second);
}

std::vector<intent_record> memory_intent_store::open_intents() const {
  std::lock_guard lock(mutex_);
  std::vector<intent_record> out;
  out.reserve(s_->open_count);
  for (const state::entry* en = s_->open_ends.older; en != nullptr; en = en->open.newer)
    out.push_back(state::record_of(*en));
  return out;
}

std::vector<timeline_entry> memory_intent_store::timeline(const idempotency_key& key) const {
  std::lock_guard lock(mutex_);
  auto it = s_->records.find(detail::hashed_key(key.str()));
  if (it == s_->records.end()) return {};
  const state::entry& en = it->second;
  std::vector<timeline_entry> out;
  out.reserve(en.timeline.size() + 2);
  if (!en.created_line_dropped) {
    out.push_back(timeline_of(events::created{.what = en.key_owner, .at = en.record.created_at()}));
  }
  out.insert(out.end(), en.timeline.begin(), en.timeline.end());
  if (en.start_number != 0) out.push_back(state::start_line(en));
  return out;
}

timeline_entry memory_intent_store::state::start_line(const entry& en) {
  // timeline_of(events::attempt_started{...}) without a copy of the key.
  return timeline_entry{
      .what = timeline_entry::kind::attempt_started, .at = en.start_at, .attempt = en.start_number};
}

std::size_t memory_intent_store::size() const {
  std::lock_guard lock(mutex_);
  return s_->records.size();
}

std::size_t memory_intent_store::remembered() const {
  std::lock_guard lock(mutex_);
  return s_->remembered.size();
}

}  // namespace idem
