#pragma once
// `idem-cli load`: N create-order intents (and, with --pay, a payment per created order) with
// bounded concurrency on one thread; one JSON summary on stdout.

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <ostream>

#include "idem/client.hpp"
#include "idem/memory_intent_store.hpp"
#include "idem_cli/command_line/command_line.hpp"
#include "idem_cli/load/load_run.hpp"
#include "idem_cli/summary.hpp"

namespace idem::cli {

/// Runs the load (see load_run.hpp) on its own io_context, on the calling thread, with at most
/// `args.concurrency` intents in flight. With a journal, the whole plan is written down before
/// the first request. The first Ctrl-C (SIGINT or SIGTERM) interrupts it: nothing more is
/// started, the intents in flight are cancelled, and the summary still counts every intent
/// (`interrupted` set). `progress_out` gets a progress bar when `show_progress` is true, and the
/// interruption notice. Throws std::runtime_error when the journal cannot be opened or written.
[[nodiscard]] load_summary run_load(const load_args& args, std::ostream& progress_out,
                                    bool show_progress);

/// The memory store of a load without a journal: it keeps nothing of an intent once it ends,
/// neither the intent (the last 10,000 by default) nor its key (the last 20,000, for the
/// key-retention rule). Nothing reads a finished intent back during a load, and nothing is
/// submitted twice: the summary counts outcomes as they arrive, and every order is a new intent.
[[nodiscard]] memory_store_options load_memory_store_options();

/// Writes every intent of `plan` to `c`'s store and waits (running `io`) until all are durable.
/// Throws std::runtime_error if any write failed.
void write_plan(boost::asio::io_context& io, client& c, const run_plan& plan);

/// Runs `plan` through `c` on `io` (with Ctrl-C handling and the progress bar) and summarises;
/// with a `deadline` (the client's), the summary says how late the intents that ran out of it
/// ended.
[[nodiscard]] load_summary run_plan_to_end(
    boost::asio::io_context& io, client& c, run_plan plan, std::size_t concurrency,
    std::ostream& progress_out, bool show_progress,
    std::chrono::milliseconds deadline = std::chrono::milliseconds{0});

}  // namespace idem::cli
