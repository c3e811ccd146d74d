#pragma once
// Internal: the lookup by business ID that settles an intent whose answers were lost.

#include <string>

#include "idem/intent.hpp"
#include "idem/transport.hpp"

namespace idem::detail {

enum class lookup_verdict {
  found,        // our result exists: the intent succeeded
  not_found,    // nothing of ours (yet): stays unresolved
  conflicting,  // the business ID is taken by other content: ours can never be created
  retry,        // no usable answer (transport failure, 5xx, 429, 408): ask again
};

[[nodiscard]] std::string_view to_string(lookup_verdict v) noexcept;

struct lookup_judgement {
  lookup_verdict verdict = lookup_verdict::retry;
  std::string body;  // the resource that decided it (found or conflicting)
};

// The GET path (with query) that finds the intent's result; empty when it has no lookup.
[[nodiscard]] std::string lookup_path(const intent& i);
// Judges one lookup response against the intent's own payload.
[[nodiscard]] lookup_judgement judge_lookup(const intent& i, const transport_result& r);

}  // namespace idem::detail
