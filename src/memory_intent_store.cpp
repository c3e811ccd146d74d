#include "idem/memory_intent_store.hpp"

#include <algorithm>
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

std::shared_ptr<const std::string> memory_intent_store::principal_locked(const std::string& p) {
  // One client's intents all carry its one principal: the last one seen is nearly always it.
  if (!last_principal_ || *last_principal_ != p) last_principal_ = std::make_shared<std::string>(p);
  return last_principal_;
}

void memory_intent_store::apply_locked(const intent_event& e) {
  auto it = records_.find(key_of(e).str());
  const bool made = it == records_.end();
  if (made) {
    const auto* c = std::get_if<events::created>(&e);
    if (!c) return;  // an event for an intent this store never saw (or already forgot)
    const auto seq = next_seq_++;
    entry en{.seq = seq, .key_owner = c->what, .record = make_record(*c)};
    en.principal = principal_locked(en.record.principal);
    std::string{}.swap(en.record.principal);
    // Copies of an intent share its data: the view stays valid while the entry holds one.
    const std::string_view key = en.key_owner.key().str();
    it = records_.emplace(key, std::move(en)).first;
    open_.emplace(seq, it->first);
  }
  entry& en = it->second;
  const bool was_open = en.record.is_open();
  if (!made) {
    apply(en.record, e);
    const auto push = [&en](timeline_entry line) {
      // Started, finished and the outcome: the lines of most intents, made as the attempt ends.
      if (en.timeline.capacity() == 0) en.timeline.reserve(3);
      en.timeline.push_back(std::move(line));
    };
    if (en.start) {
      push(start_line(en));
      en.start.reset();
    }
    if (const auto* s = std::get_if<events::attempt_started>(&e)) {
      en.start = entry::pending_start{.number = s->number, .at = s->at};
    } else {
      push(timeline_of(e));
    }
  }
  const std::size_t lines =
      en.timeline.size() + (en.start ? 1 : 0) + (en.created_line_dropped ? 0 : 1);
  if (lines > options_.max_timeline) {
    std::size_t excess = lines - options_.max_timeline;
    if (!en.created_line_dropped) {
      en.created_line_dropped = true;
      --excess;
    }
    const std::size_t from_vector = std::min(excess, en.timeline.size());
    en.timeline.erase(en.timeline.begin(),
                      en.timeline.begin() + static_cast<std::ptrdiff_t>(from_vector));
    if (excess > from_vector) en.start.reset();  // a cap of zero lines
  }
  if (was_open && !en.record.is_open()) {
    open_.erase(en.seq);
    const wall_time at = en.record.finished_at.value_or(wall_time{});
    finals_.emplace_back(at, it->first);
    forget_expired_locked(at);
  }
}

intent_record memory_intent_store::record_of(const entry& en) const {
  intent_record r = en.record;
  r.principal = *en.principal;
  return r;
}

void memory_intent_store::forget_expired_locked(wall_time now) {
  // Finals are queued in the order they became final, so the oldest are at the front.
  while (!finals_.empty() && (finals_.size() > options_.max_final ||
                              finals_.front().first + options_.retention <= now)) {
    const auto it = records_.find(finals_.front().second);
    finals_.pop_front();
    records_.erase(it);
  }
}

std::optional<intent_record> memory_intent_store::find(const idempotency_key& key) const {
  std::lock_guard lock(mutex_);
  auto it = records_.find(key.str());
  if (it == records_.end()) return std::nullopt;
  return record_of(it->second);
}

std::vector<intent_record> memory_intent_store::open_intents() const {
  std::lock_guard lock(mutex_);
  std::vector<intent_record> out;
  out.reserve(open_.size());
  for (const auto& [seq, key] : open_)
    out.push_back(record_of(records_.at(key)));
  return out;
}

std::vector<timeline_entry> memory_intent_store::timeline(const idempotency_key& key) const {
  std::lock_guard lock(mutex_);
  auto it = records_.find(key.str());
  if (it == records_.end()) return {};
  const entry& en = it->second;
  std::vector<timeline_entry> out;
  out.reserve(en.timeline.size() + 2);
  if (!en.created_line_dropped) {
    out.push_back(timeline_of(events::created{.what = en.key_owner, .at = en.record.created_at}));
  }
  out.insert(out.end(), en.timeline.begin(), en.timeline.end());
  if (en.start) out.push_back(start_line(en));
  return out;
}

timeline_entry memory_intent_store::start_line(const entry& en) {
  // timeline_of(events::attempt_started{...}) without a copy of the key.
  return timeline_entry{.what = timeline_entry::kind::attempt_started,
                        .at = en.start->at,
                        .attempt = en.start->number};
}

std::size_t memory_intent_store::size() const {
  std::lock_guard lock(mutex_);
  return records_.size();
}

}  // namespace idem
