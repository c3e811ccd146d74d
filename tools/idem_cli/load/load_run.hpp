#pragma once
// One run of intents through one client with bounded concurrency, counted as they end: the
// orders (and payments) of `idem-cli load`, or the open intents of a journal for `resume`.

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "idem/client.hpp"
#include "idem/planned_intent.hpp"
#include "idem_cli/load/load_plan.hpp"  // what a load runs (its users build it with the run)
#include "idem_cli/load/progress_bar.hpp"
#include "idem_cli/load/run_plan.hpp"
#include "idem_cli/summary.hpp"

namespace idem::cli {

/// Every member runs on the thread that runs the client's io_context. Each intent that does not
/// succeed is counted by why (failure_words; for one never submitted, why not), and the key of
/// each that ends unresolved is kept (summary()). A planned intent is
/// bound to its prerequisite's created resource and submitted ahead of the intents still waiting
/// once the prerequisite succeeded; if the prerequisite did not succeed, it is never sent and
/// counts as not_sent (written down as abandoned when the prerequisite was rejected: it can never
/// be sent; left open otherwise, for a later resume).
class load_run {
 public:
  /// `on_finished` is called once, when every intent has been counted. With a `deadline` (the
  /// client's, for every intent), the summary says how late the intents that ran out of it
  /// ended (load_summary::overshoot); zero: not measured.
  load_run(run_plan plan, std::size_t concurrency, client& c, progress_bar& bar,
           std::function<void()> on_finished,
           std::chrono::milliseconds deadline = std::chrono::milliseconds{0});
  load_run(const load_run&) = delete;
  load_run& operator=(const load_run&) = delete;

  /// Submits the first `concurrency` intents.
  void start();
  /// Ctrl-C: starts nothing more (every intent still waiting, and the payment of every order not
  /// yet paid, counts as not_sent: it never left) and shuts the client down
  /// (client::async_shutdown), which stops the intents in flight: they end unresolved (or
  /// not_sent if nothing of theirs left). Every intent is still counted once. The client
  /// refuses new submissions from then on. The run finishes once every intent is counted and
  /// the shutdown has made the store durable or said why not (load_summary::journal_error).
  void interrupt();

  [[nodiscard]] load_summary summary() const;
  [[nodiscard]] progress current() const { return current(std::chrono::steady_clock::now()); }
  /// As of `now` (a clock reading the caller has already made).
  [[nodiscard]] progress current(std::chrono::steady_clock::time_point now) const;

 private:
  void fill();
  /// Asks the plan's `more` for the next intents; false if there are none.
  bool plan_more();
  void on_outcome(const intent& what, std::chrono::steady_clock::time_point started, outcome o);
  void count(const outcome& o, const intent& what);
  void never_sent(std::uint64_t n, const char* reason);
  void check_finished();

  std::size_t concurrency_;
  client& client_;
  progress_bar& bar_;
  std::function<void()> on_finished_;
  std::chrono::steady_clock::time_point start_;
  std::deque<intent> waiting_;
  std::multimap<std::string, planned_intent> after_;  // by prerequisite key
  std::vector<intent> plan_ready_;                    // plan_more's, kept for their capacity
  std::vector<planned_intent> plan_after_;
  std::size_t in_flight_ = 0;  // submitted, outcome not yet counted
  bool interrupted_ = false;
  bool shutting_down_ = false;  // the client's shutdown has not reported yet
  std::error_code journal_error_;
  bool finished_ = false;
  std::uint64_t total_ = 0;
  std::uint64_t done_ = 0;
  outcome_counts counts_;
  std::uint64_t recovered_ = 0;
  std::uint64_t duplicates_ = 0;
  std::vector<std::chrono::microseconds> latencies_;
  std::chrono::milliseconds deadline_;
  std::vector<std::chrono::microseconds> overshoots_;  // end minus deadline, signed
  std::function<bool(std::vector<intent>&, std::vector<planned_intent>&)> more_;
  std::uint64_t unplanned_;  // intents `more_` is still to add, counted in total_
  std::function<intent(const intent&)> before_submit_;
  std::string url_;
  failure_tally failures_;
  std::vector<std::string> unresolved_keys_;
};

}  // namespace idem::cli
