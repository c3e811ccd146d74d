#pragma once
// `idem-cli load`: N create-order intents (and, with --pay, a payment per created order) with
// bounded concurrency on one thread; one JSON summary on stdout.

#include <ostream>

#include "idem_cli/command_line.hpp"
#include "idem_cli/summary.hpp"

namespace idem::cli {

/// Runs the load (see load_run.hpp) on its own io_context, on the calling thread, with at most
/// `args.concurrency` intents in flight. The first Ctrl-C (SIGINT or SIGTERM) interrupts it:
/// nothing more is started, the intents in flight are cancelled, and the summary still counts
/// every intent (`interrupted` set). `progress_out` gets a progress bar when `show_progress` is
/// true, and the interruption notice.
[[nodiscard]] load_summary run_load(const load_args& args, std::ostream& progress_out,
                                    bool show_progress);

}  // namespace idem::cli
