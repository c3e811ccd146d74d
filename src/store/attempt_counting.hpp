#pragma once
// How an attempt's start and end change an intent record's counts: the rule idem::apply follows,
// which the memory store's compact records apply in place (private to the idem library).

#include <algorithm>
#include <cstdint>
#include <optional>

#include "idem/intent_store.hpp"

namespace idem::detail {

/// An attempt started: the count of attempts is the highest number started.
inline void count_start(std::uint32_t& attempts, const events::attempt_started& a) noexcept {
  attempts = std::max(attempts, a.number);
}

/// An attempt ended: one more finished (never more than started), its class the last one, and
/// the intent has reached the server unless the attempt was provably not sent.
inline void count_end(std::uint32_t attempts, std::uint32_t& attempts_finished,
                      std::optional<attempt_class>& last_class, bool& reached_server,
                      const events::attempt_finished& a) noexcept {
  attempts_finished = std::min(attempts, attempts_finished + 1);
  last_class = a.cls;
  if (a.cls != attempt_class::not_sent) reached_server = true;
}

}  // namespace idem::detail
