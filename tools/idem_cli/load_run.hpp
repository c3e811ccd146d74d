#pragma once
// One `idem-cli load` run: N create-order intents (and, with --pay, a payment per created order)
// submitted through one client with bounded concurrency, counted as they end.

#include <boost/asio/cancellation_signal.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "idem/client.hpp"
#include "idem_cli/command_line.hpp"
#include "idem_cli/progress_bar.hpp"
#include "idem_cli/summary.hpp"

namespace idem::cli {

/// Every member runs on the thread that runs the client's io_context. Orders get fresh
/// merchant_order_ids (a random run ID plus a sequence number). A payment is created and
/// submitted once its order succeeded, ahead of the orders still waiting; if its order did not
/// succeed, the payment is never sent and counts as not_sent.
class load_run {
 public:
  /// `on_finished` is called once, when every intent has been counted.
  load_run(const load_args& args, client& c, progress_bar& bar, std::function<void()> on_finished);
  load_run(const load_run&) = delete;
  load_run& operator=(const load_run&) = delete;

  /// Submits the first `concurrency` intents.
  void start();
  /// Ctrl-C: starts nothing more (every intent still waiting, and the payment of every order not
  /// yet paid, counts as not_sent: it never left) and cancels the intents in flight, which end
  /// unresolved (or not_sent if nothing of theirs left). Every intent is still counted once.
  void interrupt();

  [[nodiscard]] load_summary summary() const;
  [[nodiscard]] progress current() const;

 private:
  struct job {
    intent what;
    std::int64_t amount_minor;
    bool is_order;
    std::chrono::steady_clock::time_point started{};
  };

  void fill();
  void on_outcome(std::uint64_t id, const job& j, outcome o);
  void count(const outcome& o);
  void never_sent(std::uint64_t n);
  void check_finished();

  const load_args& args_;
  client& client_;
  progress_bar& bar_;
  std::function<void()> on_finished_;
  std::string run_;
  std::chrono::steady_clock::time_point start_;
  std::deque<job> waiting_;
  // One cancellation signal per intent in flight (a signal has room for one handler).
  std::map<std::uint64_t, std::unique_ptr<boost::asio::cancellation_signal>> in_flight_;
  std::uint64_t next_id_ = 0;
  bool interrupted_ = false;
  bool finished_ = false;
  std::uint64_t total_ = 0;
  std::uint64_t done_ = 0;
  outcome_counts counts_;
  std::uint64_t recovered_ = 0;
  std::vector<std::chrono::microseconds> latencies_;
};

}  // namespace idem::cli
