#pragma once
/// @file
/// The verdict on one answer to a lookup by business id (business_lookup.hpp judges it; the
/// observer's trace::lookup_finished reports it).

#include <string_view>

namespace idem {

/// The verdict on one lookup answer.
enum class lookup_verdict {
  found,        ///< our result exists: the intent succeeded
  not_found,    ///< proven absent (404, 410, or a readable list without ours): nothing of ours
  conflicting,  ///< the server's record proves another intent owns the business ID: rejected
  retry,        ///< no usable answer yet (5xx, 408, 429): ask again
  /// An answer that proves nothing and will not improve by asking again (401, 403, 400, a
  /// redirect, 204, a body that is not the records): neither found nor absent. It never
  /// licenses a write; the intent stays unresolved.
  inconclusive,
};
[[nodiscard]] std::string_view to_string(lookup_verdict v) noexcept;

}  // namespace idem
