#pragma once
// An intent_record as the memory store keeps it. Most records are of intents in flight, whose
// dependency, final answer and error are empty and whose principal the store keeps once for
// all of them: those strings (about 140 of intent_record's 232 bytes) sit behind one pointer,
// allocated only when one of them is set, and the optional times are kept without their
// flags. expand() gives back the record exactly as apply() made it.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "idem/intent_store.hpp"

namespace idem::detail {

class compact_intent_record {
 public:
  /// `r` without its principal (the caller keeps that).
  explicit compact_intent_record(intent_record r);

  /// The record, with `principal` put back.
  [[nodiscard]] intent_record expand(std::string principal) const;
  /// Applies one event as idem::apply does to the full record.
  void apply(const intent_event& e);
  /// Whether apply(e) would end the record (intent_closing.hpp), without applying it.
  [[nodiscard]] bool closed_by(const intent_event& e) const noexcept;

  [[nodiscard]] bool is_open() const noexcept { return state_ == intent_state::open; }
  [[nodiscard]] wall_time created_at() const noexcept { return created_at_; }
  [[nodiscard]] std::optional<wall_time> finished_at() const noexcept {
    return unless_none(finished_at_);
  }

 private:
  // No wall clock reads this (it is before the epoch by centuries): "not set".
  static constexpr wall_time none = wall_time::min();
  [[nodiscard]] static std::optional<wall_time> unless_none(wall_time t) noexcept {
    return t == none ? std::nullopt : std::optional<wall_time>(t);
  }
  // The record without its strings, with `what`.
  [[nodiscard]] intent_record scalars(intent what) const;
  // Moves the record out (this object is left to be packed again; the strings' holder stays).
  [[nodiscard]] intent_record take();
  // Takes `r` in, reusing the strings' holder when there is one and `r` needs it.
  void pack(intent_record r);

  struct strings {
    std::optional<std::string> depends_on;
    std::string final_body;
    std::string error;
  };

  intent what_;
  wall_time created_at_{};
  wall_time first_attempt_at_ = none;
  wall_time finished_at_ = none;
  std::unique_ptr<strings> strings_;  // nullptr while all are empty
  std::uint32_t attempts_ = 0;
  std::uint32_t attempts_finished_ = 0;
  int final_status_ = 0;
  std::optional<attempt_class> last_class_;
  std::optional<outcome_kind> last_outcome_;
  intent_state state_ = intent_state::open;
  bool path_bound_ = true;
  bool reached_server_ = false;
};

}  // namespace idem::detail
