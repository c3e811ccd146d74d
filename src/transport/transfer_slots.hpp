#pragma once
// The transfers in flight, by id: a vector of slots reused as transfers end, so that finding,
// adding and removing one allocates nothing and hashes nothing (an unordered_map took a node
// and a bucket, about 40 bytes with malloc's overhead, for each of thousands in flight).
//
// An id is a slot's index (low 32 bits) and that slot's serial (high 32 bits), which changes
// every time the slot is reused: a late lookup by the id of a transfer that has ended (a
// cancellation posted before it ended) finds nothing, even when another transfer took its slot.

#include <cstdint>
#include <memory>
#include <vector>

namespace idem::detail {

template <class T>
class transfer_slots {
 public:
  /// Puts `item` (not null) in a free slot; returns its id.
  std::uint64_t insert(std::unique_ptr<T> item) {
    std::uint32_t index;
    if (free_.empty()) {
      index = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    } else {
      index = free_.back();
      free_.pop_back();
    }
    slot& s = slots_[index];
    s.item = std::move(item);
    ++count_;
    return (static_cast<std::uint64_t>(s.serial) << 32) | index;
  }

  /// The item of `id`, or nullptr if it was taken.
  [[nodiscard]] T* find(std::uint64_t id) const noexcept {
    const slot* s = occupied(*this, id);
    return s ? s->item.get() : nullptr;
  }

  /// Removes and returns the item of `id` (nullptr if it was taken already).
  std::unique_ptr<T> take(std::uint64_t id) noexcept {
    slot* s = occupied(*this, id);
    if (s == nullptr) return nullptr;
    auto item = std::move(s->item);
    ++s->serial;  // ids handed out for the slot until now find nothing any more
    free_.push_back(static_cast<std::uint32_t>(id));
    --count_;
    return item;
  }

  /// The ids of every item, in no particular order (to end them all).
  [[nodiscard]] std::vector<std::uint64_t> ids() const {
    std::vector<std::uint64_t> out;
    out.reserve(count_);
    for (std::uint32_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i].item) out.push_back((static_cast<std::uint64_t>(slots_[i].serial) << 32) | i);
    }
    return out;
  }

  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] bool empty() const noexcept { return count_ == 0; }

 private:
  struct slot {
    std::unique_ptr<T> item;
    std::uint32_t serial = 0;
  };
  // The slot of `id` if it holds that id's item (const or not, as `self`).
  template <class Self>
  [[nodiscard]] static auto* occupied(Self& self, std::uint64_t id) noexcept {
    const auto index = static_cast<std::uint32_t>(id);
    auto* s = index < self.slots_.size() ? &self.slots_[index] : nullptr;
    return s && s->item && s->serial == static_cast<std::uint32_t>(id >> 32) ? s : nullptr;
  }

  std::vector<slot> slots_;
  std::vector<std::uint32_t> free_;  // indexes of empty slots; the last freed is reused first
  std::size_t count_ = 0;
};

}  // namespace idem::detail
