#pragma once
// Which events end an intent, and how an attempt's events count: the rules idem::apply
// follows, for a store that must know before it applies an event or that keeps its records in
// another shape (private to the idem library).

#include <algorithm>
#include <cstdint>
#include <optional>

#include "idem/intent_store.hpp"

namespace idem::detail {

/// Whether apply(r, e) ends `r`: open before, final after (succeeded, rejected or abandoned).
[[nodiscard]] bool closes(const intent_record& r, const intent_event& e) noexcept;
/// The same rule from the two facts of the record it reads (`r.is_open()`, `r.maybe_sent()`),
/// for a store that keeps its records in another shape.
[[nodiscard]] bool closes(bool open, bool maybe_sent, const intent_event& e) noexcept;

/// How an attempt's start and end change a record's counts, as apply() changes them; the
/// memory store's compact records apply them in place (compact_intent_record.cpp).
inline void count_start(std::uint32_t& attempts, const events::attempt_started& a) noexcept {
  attempts = std::max(attempts, a.number);
}
inline void count_end(std::uint32_t attempts, std::uint32_t& attempts_finished,
                      std::optional<attempt_class>& last_class, bool& reached_server,
                      const events::attempt_finished& a) noexcept {
  attempts_finished = std::min(attempts, attempts_finished + 1);
  last_class = a.cls;
  if (a.cls != attempt_class::not_sent) reached_server = true;
}

}  // namespace idem::detail
