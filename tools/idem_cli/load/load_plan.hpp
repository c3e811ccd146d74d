#pragma once
// The plan of `idem-cli load`: which intents it submits. With a journal every key is minted up
// front, so that the journal holds the whole plan before the first request; without one each
// order is planned only when the run is ready to submit it.

#include "idem_cli/command_line/command_line.hpp"
#include "idem_cli/load/run_plan.hpp"

namespace idem::cli {

/// N orders with fresh merchant_order_ids (a random run ID plus a sequence number), POSTed to
/// `args.path` with the lookup the command line chose (the orders API's preset by default).
/// With --pay, a planned payment for each (its key minted now, its path and lookup the mock
/// server's payment route). With --mix, what each order gets is drawn from the mix and the
/// seed (load_mix.hpp): a second create of the same cart right after the first, a payment, a
/// second payment, a cancel (the planned intents wait for the order's first create).
[[nodiscard]] run_plan load_plan(const load_args& args);

/// The same intents as load_plan, planned one order at a time as the run asks for them
/// (run_plan::more): memory and CPU spent on intents in flight, not on the whole run up front.
/// Without a journal nothing needs the plan before the first request.
[[nodiscard]] run_plan load_plan_on_demand(const load_args& args);

}  // namespace idem::cli
