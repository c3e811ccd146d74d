#pragma once
// `idem-cli load`: N create-order intents (and, with --pay, a payment per created order) with
// bounded concurrency on one thread; one JSON summary on stdout.

#include <ostream>

#include "idem_cli/command_line.hpp"
#include "idem_cli/summary.hpp"

namespace idem::cli {

/// Runs the load on its own io_context, on the calling thread, with at most `args.concurrency`
/// intents in flight. Orders get fresh merchant_order_ids (a random run ID plus a sequence
/// number). A payment is created and submitted once its order succeeded, ahead of the orders
/// still waiting; if its order did not succeed, the payment is never sent and counts as
/// not_sent. `progress_out` gets a progress bar when `show_progress` is true.
[[nodiscard]] load_summary run_load(const load_args& args, std::ostream& progress_out,
                                    bool show_progress);

}  // namespace idem::cli
