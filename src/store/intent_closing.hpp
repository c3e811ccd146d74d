#pragma once
// Which events end an intent: the rule idem::apply follows, for a store that must know before
// it applies one (private to the idem library).

#include "idem/intent_store.hpp"

namespace idem::detail {

/// Whether apply(r, e) ends `r`: open before, final after (succeeded, rejected or abandoned).
[[nodiscard]] bool closes(const intent_record& r, const intent_event& e) noexcept;
/// The same rule from the two facts of the record it reads (`r.is_open()`, `r.maybe_sent()`),
/// for a store that keeps its records in another shape.
[[nodiscard]] bool closes(bool open, bool maybe_sent, const intent_event& e) noexcept;

}  // namespace idem::detail
