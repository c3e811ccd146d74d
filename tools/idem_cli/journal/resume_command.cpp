#include "idem_cli/journal/resume_command.hpp"

#include <algorithm>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/io_context.hpp>
#include <optional>

#include "idem/client.hpp"
#include "idem_cli/client_settings.hpp"
#include "idem_cli/crash_points.hpp"
#include "idem_cli/failure_words.hpp"
#include "idem_cli/interrupt_signals.hpp"
#include "idem_cli/journal/journal_file.hpp"
#include "idem_cli/load/file_limit.hpp"
#include "idem_cli/load/latency.hpp"
#include "idem_cli/load/progress_bar.hpp"
#include "idem_cli/lookup_choice.hpp"

namespace idem::cli {
namespace {

using clock = std::chrono::steady_clock;

// The summary `load` prints, from what the resume reported: every open intent of this token's
// counted once (an outcome, or not_sent for a plan that was never submitted).
load_summary summary_of(const resume_summary& r, const client& c, const std::string& url,
                        bool interrupted, clock::time_point started) {
  load_summary s;
  s.intents = r.open - r.foreign;
  std::vector<std::chrono::microseconds> latencies;
  for (const auto& o : r.outcomes) {
    add(s.counts, o.kind());
    latencies.push_back(o.elapsed());
    if (o.recovered_by_lookup()) ++s.recovered_by_lookup;
    if (o.matching_records() > 1) ++s.duplicates_found;
    if (o.kind() == outcome_kind::succeeded) continue;
    s.failures.add(o.kind(), failure_words(o, url, /*with_body=*/false));
    if (o.kind() == outcome_kind::unresolved) s.unresolved_keys.push_back(o.key());
  }
  s.counts.not_sent += r.abandoned + r.not_started;
  s.failures.add(outcome_kind::not_sent, "not submitted: its prerequisite can never succeed",
                 r.abandoned);
  s.failures.add(outcome_kind::not_sent,
                 interrupted ? "not started: interrupted"
                             : "not submitted: its prerequisite did not succeed",
                 r.not_started);
  const client_counters n = c.counters();
  s.attempts = n.attempts;
  s.retries = n.retries;
  s.p50 = percentile(latencies, 50);
  s.p99 = percentile(latencies, 99);
  s.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - started);
  s.interrupted = interrupted;
  return s;
}

}  // namespace

load_summary run_resume(const resume_args& args, std::ostream& progress_out, bool show_progress,
                        bool& foreign_token) {
  if (auto why = make_room_for_connections(args.concurrency); !why.empty()) {
    throw std::runtime_error(why);
  }
  boost::asio::io_context io{1};
  auto options = client_settings(args.common);
  options.observer = crash_observer_from_env(io.get_executor());
  options.store = open_journal_file(args.journal);
  client c{io.get_executor(), options};
  const auto started = clock::now();
  progress_bar bar(progress_out, show_progress);
  progress now{.total = c.store()->open_intents().size()};
  resume_options what{.concurrency = args.concurrency};
  if (args.common.lookup.overrides()) {
    // Every intent resumed gets the command line's lookup (its own business ID kept).
    what.adjust = [choice = args.common.lookup](const intent& i) { return with_lookup(choice, i); };
  }
  what.on_outcome = [&](const outcome& o) {
    ++now.done;
    now.succeeded += o.kind() == outcome_kind::succeeded ? 1 : 0;
    now.rejected += o.kind() == outcome_kind::rejected ? 1 : 0;
    now.open += o.kind() == outcome_kind::succeeded || o.kind() == outcome_kind::rejected ? 0 : 1;
    now.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - started);
    bar.update(now);
  };
  std::optional<resume_summary> got;
  boost::asio::cancellation_signal stop;
  bool interrupted = false;
  c.async_resume(std::move(what),
                 boost::asio::bind_cancellation_slot(stop.slot(), [&](resume_summary r) {
                   got = std::move(r);
                   io.stop();  // the Ctrl-C signal_set keeps `io` busy
                 }));
  interrupt_signals ctrl_c(io, [&](int) {
    bar.finish(now);
    progress_out << "idem-cli: interrupted; cancelling the intents in flight\n";
    interrupted = true;
    stop.emit(boost::asio::cancellation_type::terminal);
  });
  io.run();
  if (got && got->error == errc::foreign_credentials) {
    foreign_token = true;
    return {};
  }
  bar.finish(now);
  load_summary s = summary_of(got.value_or(resume_summary{}), c, args.common.url, interrupted,
                              started);
  if (interrupted) {
    // As after an interrupted load: the journal says what it could make durable.
    std::optional<flush_report> flushed;
    io.restart();
    c.async_shutdown([&](const flush_report& f) { flushed = f; });
    while (!flushed && io.run_one() != 0) {
    }
    if (flushed) s.journal_error = flushed->store_error;
  }
  return s;
}

}  // namespace idem::cli
