#pragma once
// `idem-cli submit`: one intent, its outcome as one JSON object on stdout.

#include <ostream>
#include <string>

#include "idem/intent.hpp"
#include "idem_cli/command_line.hpp"

namespace idem::cli {

/// The lookup that settles a write to `path` when its answers were lost: by merchant_order_id
/// for `/v1/orders`, by order id for `/v1/orders/{id}/payments` and `/v1/orders/{id}/cancel`;
/// none for any other path (such an intent may end unresolved).
[[nodiscard]] business_lookup lookup_for(const std::string& path, const std::string& business_id);

/// Submits the intent, prints its outcome as one JSON line on `out` and returns the exit status
/// (0 succeeded, 1 rejected, 3 not sent or unresolved). Blocks the calling thread until the
/// outcome (at most the deadline). Ctrl-C cancels the intent: its outcome (unresolved, or
/// not_sent if nothing left) is still printed.
[[nodiscard]] int run_submit(const submit_args& args, std::ostream& out);

}  // namespace idem::cli
