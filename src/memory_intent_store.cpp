#include "idem/memory_intent_store.hpp"

#include <boost/asio/append.hpp>
#include <boost/asio/post.hpp>

namespace idem {

memory_intent_store::memory_intent_store(memory_store_options options) : options_(options) {}

void memory_intent_store::async_write(intent_event e, boost::asio::any_io_executor ex,
                                      write_handler handler) {
  write(std::move(e));
  // Durable as far as this store goes: done. Still posted, never inline.
  boost::asio::post(ex, boost::asio::append(std::move(handler), std::error_code{}));
}

void memory_intent_store::write(intent_event e) {
  std::lock_guard lock(mutex_);
  apply_locked(e);
}

void memory_intent_store::apply_locked(const intent_event& e) {
  const std::string& key = key_of(e).str();
  auto it = records_.find(key);
  if (it == records_.end()) {
    const auto* c = std::get_if<events::created>(&e);
    if (!c) return;  // an event for an intent this store never saw (or already forgot)
    const auto seq = next_seq_++;
    it = records_.emplace(key, entry{seq, make_record(*c), {}}).first;
    open_.emplace(seq, &it->first);
  }
  entry& en = it->second;
  const bool was_open = en.record.is_open();
  apply(en.record, e);
  // Created and started, while in flight; it grows to 4 lines (finished, outcome) at the end.
  if (en.timeline.empty()) en.timeline.reserve(2);
  en.timeline.push_back(timeline_of(e));
  if (en.timeline.size() > options_.max_timeline) {
    en.timeline.erase(en.timeline.begin(),
                      en.timeline.begin() +
                          static_cast<std::ptrdiff_t>(en.timeline.size() - options_.max_timeline));
  }
  if (was_open && !en.record.is_open()) {
    open_.erase(en.seq);
    const wall_time at = en.record.finished_at.value_or(wall_time{});
    finals_.emplace_back(at, &it->first);
    forget_expired_locked(at);
  }
}

void memory_intent_store::forget_expired_locked(wall_time now) {
  // Finals are queued in the order they became final, so the oldest are at the front.
  while (!finals_.empty() && (finals_.size() > options_.max_final ||
                              finals_.front().first + options_.retention <= now)) {
    const auto it = records_.find(*finals_.front().second);
    finals_.pop_front();
    records_.erase(it);
  }
}

std::optional<intent_record> memory_intent_store::find(const idempotency_key& key) const {
  std::lock_guard lock(mutex_);
  auto it = records_.find(key.str());
  if (it == records_.end()) return std::nullopt;
  return it->second.record;
}

std::vector<intent_record> memory_intent_store::open_intents() const {
  std::lock_guard lock(mutex_);
  std::vector<intent_record> out;
  out.reserve(open_.size());
  for (const auto& [seq, key] : open_)
    out.push_back(records_.at(*key).record);
  return out;
}

std::vector<timeline_entry> memory_intent_store::timeline(const idempotency_key& key) const {
  std::lock_guard lock(mutex_);
  auto it = records_.find(key.str());
  if (it == records_.end()) return {};
  return {it->second.timeline.begin(), it->second.timeline.end()};
}

std::size_t memory_intent_store::size() const {
  std::lock_guard lock(mutex_);
  return records_.size();
}

}  // namespace idem
