#pragma once
// Internal: a policy that cannot work is refused where it is built (the client's constructor, a
// submission's own options), with std::invalid_argument naming the field, rather than found out
// later as intents that end without a word.

#include <string_view>

#include "idem/client.hpp"

namespace idem::detail {

// Throws std::invalid_argument naming the first field of `options` that cannot work.
void check_policy(const client_options& options);
// Throws std::invalid_argument naming the field, as `<where>.total` etc.
void check_deadline(const deadline_policy& policy, std::string_view where);

}  // namespace idem::detail
