#include "idem_cli/load/load_command.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <optional>
#include <stdexcept>

#include "idem/client.hpp"
#include "idem/journal_error.hpp"
#include "idem/memory_intent_store.hpp"
#include "idem_cli/client_settings.hpp"
#include "idem_cli/crash_points.hpp"
#include "idem_cli/interrupt_signals.hpp"
#include "idem_cli/journal/journal_file.hpp"
#include "idem_cli/load/file_limit.hpp"
#include "idem_cli/load/load_run.hpp"

namespace idem::cli {

load_summary run_plan_to_end(boost::asio::io_context& io, client& c, run_plan plan,
                             std::size_t concurrency, std::ostream& progress_out,
                             bool show_progress, std::chrono::milliseconds deadline) {
  if (auto why = make_room_for_connections(concurrency); !why.empty()) {
    throw std::runtime_error(why);
  }
  progress_bar bar(progress_out, show_progress);
  // The Ctrl-C signal_set (interrupt_signals) waits until it is destroyed, so run() would not
  // return on its own: stop the loop when the last intent is counted.
  load_run run(
      std::move(plan), concurrency, c, bar, [&io] { io.stop(); }, deadline);
  interrupt_signals ctrl_c(io, [&](int) {
    bar.finish(run.current());
    progress_out << "idem-cli: interrupted; cancelling the intents in flight\n";
    run.interrupt();
  });
  run.start();
  io.run();
  bar.finish(run.current());
  return run.summary();
}

void write_plan(boost::asio::io_context& io, client& c, const run_plan& plan) {
  // Every intent of the plan, keys minted, is written down before the first request: a crash
  // from here on loses nothing. One write waits for them all (one transaction or a few).
  std::optional<std::error_code> done;
  c.async_plan_all(plan.ready, plan.after, [&](std::error_code ec) { done = ec; });
  while (!done && io.run_one() != 0) {
  }
  const std::error_code failure = done.value_or(make_error_code(journal_errc::closed));
  io.restart();
  if (failure)
    throw std::runtime_error("cannot write the plan to the journal: " + failure.message());
  crash_if_asked("planned");
}

memory_store_options load_memory_store_options() {
  // Keeping the last 10,000 finished intents cost a 20,000-order run about 45 MB and 40 µs of
  // CPU per intent; remembering their keys (issue 41) about 3,500 instructions per intent
  // (remember's copy of the record, the request's digest, the queues), 3 % of the load's.
  return {.max_final = 0, .key_retention = std::chrono::milliseconds{0}, .max_remembered = 0};
}

load_summary run_load(const load_args& args, std::ostream& progress_out, bool show_progress) {
  boost::asio::io_context io{1};
  auto options = client_settings(args.common);
  options.observer = crash_observer_from_env(io.get_executor());
  if (!args.journal.empty()) {
    options.store = open_journal_file(args.journal);
  } else {
    options.store = std::make_shared<memory_intent_store>(load_memory_store_options());
  }
  client c{io.get_executor(), options};
  // Between the plan's last completion and the run's first submission nothing else may be
  // queued on `io`: without a guard of our own it could run out of work and stop there. The run
  // ends with io.stop() (the Ctrl-C signal_set keeps `io` busy anyway).
  const auto guard = boost::asio::make_work_guard(io);
  // A journal holds the whole plan before the first request; without one, each order is
  // planned as the run gets to it.
  run_plan plan = args.journal.empty() ? load_plan_on_demand(args) : load_plan(args);
  if (!args.journal.empty()) write_plan(io, c, plan);
  return run_plan_to_end(io, c, std::move(plan), args.concurrency, progress_out, show_progress,
                         args.common.deadline);
}

}  // namespace idem::cli
