#pragma once
// `idem-cli conform`: runs every check against a backend in order and prints the report, as a
// table or as JSON. A check that got no HTTP answer at all ends the run: the checks after it are
// reported as not run (an unreachable backend costs one timeout, not one per request).

#include <ostream>

#include "idem/server_profile.hpp"
#include "idem_cli/command_line/command_line.hpp"
#include "idem_cli/conform/conform_request.hpp"
#include "idem_cli/conform/conform_result.hpp"

namespace idem::cli {

/// The endpoint `args` describe: its defaults filled in (the create-order body, a 10 s timeout
/// per request, the orders API's lookup for /v1/orders unless the lookup flags say otherwise).
[[nodiscard]] conform_endpoint endpoint_for(const conform_args& args);

/// Runs the checks against `endpoint`, read with `profile`, with a burst of `race` requests.
/// Blocks until done: each request is bounded by the endpoint's timeout.
[[nodiscard]] conform_report run_checks(const conform_endpoint& endpoint,
                                        const server_profile& profile, std::size_t race,
                                        const std::string& cacert = {});

/// The whole command: the report on `out` (a table, or one JSON line with --json); on `err` a
/// line naming the failed or unfinished checks unless the status is 0. Returns the status:
/// exit_conform_clean, exit_conform_broken or exit_conform_inconclusive.
[[nodiscard]] int run_conform(const conform_args& args, std::ostream& out, std::ostream& err);

}  // namespace idem::cli
