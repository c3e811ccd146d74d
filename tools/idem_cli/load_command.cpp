#include "idem_cli/load_command.hpp"

#include <boost/asio/io_context.hpp>
#include <deque>
#include <optional>
#include <vector>

#include "idem/client.hpp"
#include "idem/orders.hpp"
#include "idem_cli/client_settings.hpp"
#include "idem_cli/latency.hpp"
#include "idem_cli/progress_bar.hpp"

namespace idem::cli {
namespace {

using clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// A fresh prefix per run, so that merchant_order_ids never collide with an earlier run's.
std::string run_id() {
  return idempotency_key::mint().str().substr(0, 8);
}

orders::order_request order_number(const std::string& run, std::size_t n) {
  const std::int64_t price = 100 + static_cast<std::int64_t>(n % 50) * 10;
  return {.merchant_order_id = "load-" + run + "-" + std::to_string(n),
          .customer_id = "load-customer-" + std::to_string(n % 100),
          .currency = "EUR",
          .amount_minor = price * 2,
          .items = {
              {.sku = "sku-" + std::to_string(n % 20), .quantity = 2, .unit_price_minor = price}}};
}

// The order's id from a succeeded create: the 201 body, or the order found by the lookup.
std::optional<std::string> order_id_of(const outcome& o) {
  auto body = nlohmann::json::parse(o.body(), nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) return std::nullopt;
  auto id = body.find("id");
  if (id == body.end() || !id->is_string()) return std::nullopt;
  return id->get<std::string>();
}

// The run's state: everything is touched on the one thread that runs the io_context.
class load_run {
 public:
  load_run(const load_args& args, boost::asio::io_context& io, client& c, progress_bar& bar)
      : args_(args), io_(io), client_(c), bar_(bar), run_(run_id()), start_(clock::now()) {
    total_ = args.orders * (args.pay ? 2 : 1);
    latencies_.reserve(total_);
    for (std::size_t n = 0; n < args.orders; ++n) {
      auto req = order_number(run_, n);
      waiting_.push_back({orders::create(req), req.amount_minor, true});
    }
  }

  void start() {
    if (total_ == 0) return io_.stop();
    fill();
  }

  [[nodiscard]] load_summary summary() {
    load_summary s;
    s.intents = total_;
    s.counts = counts_;
    s.recovered_by_lookup = recovered_;
    const client_counters c = client_.counters();
    s.attempts = c.attempts;
    s.retries = c.retries;
    s.p50 = percentile(latencies_, 50);
    s.p99 = percentile(latencies_, 99);
    s.elapsed = std::chrono::duration_cast<milliseconds>(clock::now() - start_);
    return s;
  }

  [[nodiscard]] progress current() const {
    return {.done = done_,
            .total = total_,
            .succeeded = counts_.succeeded,
            .open = counts_.unresolved + counts_.not_sent,
            .rejected = counts_.rejected,
            .elapsed = std::chrono::duration_cast<milliseconds>(clock::now() - start_)};
  }

 private:
  struct job {
    intent what;
    std::int64_t amount_minor;
    bool is_order;
    clock::time_point started{};
  };

  void fill() {
    while (in_flight_ < args_.concurrency && !waiting_.empty()) {
      job j = std::move(waiting_.front());
      waiting_.pop_front();
      j.started = clock::now();
      ++in_flight_;
      client_.async_submit(j.what, [this, j](outcome o) { on_outcome(j, std::move(o)); });
    }
  }

  void on_outcome(const job& j, outcome o) {
    --in_flight_;
    count(o);
    // Measured here in microseconds: on loopback most intents take well under a millisecond.
    latencies_.push_back(
        std::chrono::duration_cast<std::chrono::microseconds>(clock::now() - j.started));
    if (j.is_order && args_.pay) {
      std::optional<std::string> order_id;
      if (o.kind() == outcome_kind::succeeded) order_id = order_id_of(o);
      if (order_id) {
        // Payments go first: a created order should not wait behind every other order.
        waiting_.push_front(
            {orders::pay(*order_id, {.amount_minor = j.amount_minor, .currency = "EUR"}),
             j.amount_minor, false});
      } else {
        ++counts_.not_sent;  // its payment never leaves: nothing happened
        ++done_;
      }
    }
    bar_.update(current());
    if (done_ == total_) return io_.stop();  // idle keep-alive connections may hold the loop
    fill();
  }

  void count(const outcome& o) {
    ++done_;
    switch (o.kind()) {
      case outcome_kind::succeeded:
        ++counts_.succeeded;
        break;
      case outcome_kind::rejected:
        ++counts_.rejected;
        break;
      case outcome_kind::not_sent:
        ++counts_.not_sent;
        break;
      case outcome_kind::unresolved:
        ++counts_.unresolved;
        break;
    }
    if (o.recovered_by_lookup()) ++recovered_;
  }

  const load_args& args_;
  boost::asio::io_context& io_;
  client& client_;
  progress_bar& bar_;
  std::string run_;
  clock::time_point start_;
  std::deque<job> waiting_;
  std::size_t in_flight_ = 0;
  std::uint64_t total_ = 0;
  std::uint64_t done_ = 0;
  outcome_counts counts_;
  std::uint64_t recovered_ = 0;
  std::vector<std::chrono::microseconds> latencies_;
};

}  // namespace

load_summary run_load(const load_args& args, std::ostream& progress_out, bool show_progress) {
  boost::asio::io_context io{1};
  progress_bar bar(progress_out, show_progress);
  client c{io.get_executor(), client_settings(args.url, args.token, args.deadline)};
  load_run run(args, io, c, bar);
  run.start();
  io.run();
  bar.finish(run.current());
  return run.summary();
}

}  // namespace idem::cli
