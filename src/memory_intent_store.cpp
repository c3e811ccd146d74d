#include <algorithm>

#include "idem/intent_store.hpp"

namespace idem {

void memory_intent_store::record_created(const intent& i) {
  std::lock_guard lock(mutex_);
  records_.try_emplace(i.key().str(), entry{next_seq_++, intent_record{i}});
}

bool memory_intent_store::bind_credentials(const idempotency_key& key,
                                           std::string_view fingerprint) {
  std::lock_guard lock(mutex_);
  auto it = records_.find(key.str());
  // A key the store never saw cannot have been sent through it: nothing to bind against.
  if (it == records_.end()) return true;
  auto& bound = it->second.record.credentials_fingerprint;
  if (!bound) bound = std::string(fingerprint);
  return *bound == fingerprint;
}

void memory_intent_store::record_attempt_started(const idempotency_key& key) {
  std::lock_guard lock(mutex_);
  if (auto it = records_.find(key.str()); it != records_.end()) ++it->second.record.attempts;
}

void memory_intent_store::record_attempt_finished(const idempotency_key& key, attempt_class c) {
  std::lock_guard lock(mutex_);
  if (auto it = records_.find(key.str()); it != records_.end()) {
    it->second.record.last_class = c;
    if (c != attempt_class::not_sent) it->second.record.maybe_sent = true;
  }
}

void memory_intent_store::record_outcome(const idempotency_key& key, const outcome& o) {
  std::lock_guard lock(mutex_);
  if (auto it = records_.find(key.str()); it != records_.end()) {
    it->second.record.final_kind = o.kind();
  }
}

std::vector<intent_record> memory_intent_store::open_intents() const {
  std::vector<const entry*> open;
  std::lock_guard lock(mutex_);
  for (const auto& [k, e] : records_) {
    if (!e.record.final_kind || !is_final(*e.record.final_kind)) open.push_back(&e);
  }
  std::sort(open.begin(), open.end(), [](auto* a, auto* b) { return a->seq < b->seq; });
  std::vector<intent_record> out;
  out.reserve(open.size());
  for (auto* e : open)
    out.push_back(e->record);
  return out;
}

std::optional<intent_record> memory_intent_store::find(const idempotency_key& key) const {
  std::lock_guard lock(mutex_);
  auto it = records_.find(key.str());
  if (it == records_.end()) return std::nullopt;
  return it->second.record;
}

}  // namespace idem
