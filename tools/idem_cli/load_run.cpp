#include "idem_cli/load_run.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <optional>

#include "idem/orders.hpp"
#include "idem_cli/latency.hpp"

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

}  // namespace

load_run::load_run(const load_args& args, client& c, progress_bar& bar,
                   std::function<void()> on_finished)
    : args_(args),
      client_(c),
      bar_(bar),
      on_finished_(std::move(on_finished)),
      run_(run_id()),
      start_(clock::now()) {
  total_ = args.orders * (args.pay ? 2 : 1);
  latencies_.reserve(total_);
  for (std::size_t n = 0; n < args.orders; ++n) {
    auto req = order_number(run_, n);
    waiting_.push_back({orders::create(req), req.amount_minor, true});
  }
}

void load_run::start() {
  check_finished();  // nothing to do at all
  fill();
}

void load_run::interrupt() {
  if (interrupted_ || finished_) return;
  interrupted_ = true;
  std::uint64_t unsent = 0;
  for (const job& j : waiting_)
    unsent += (j.is_order && args_.pay) ? 2 : 1;
  waiting_.clear();
  never_sent(unsent);
  // Each cancelled intent completes later, through on_outcome, like any other.
  for (auto& [id, signal] : in_flight_)
    signal->emit(boost::asio::cancellation_type::terminal);
  check_finished();
}

load_summary load_run::summary() const {
  load_summary s;
  s.intents = total_;
  s.counts = counts_;
  s.recovered_by_lookup = recovered_;
  const client_counters c = client_.counters();
  s.attempts = c.attempts;
  s.retries = c.retries;
  auto samples = latencies_;  // percentile() sorts its input
  s.p50 = percentile(samples, 50);
  s.p99 = percentile(samples, 99);
  s.elapsed = std::chrono::duration_cast<milliseconds>(clock::now() - start_);
  s.interrupted = interrupted_;
  return s;
}

progress load_run::current() const {
  return {.done = done_,
          .total = total_,
          .succeeded = counts_.succeeded,
          .open = counts_.unresolved + counts_.not_sent,
          .rejected = counts_.rejected,
          .elapsed = std::chrono::duration_cast<milliseconds>(clock::now() - start_)};
}

void load_run::fill() {
  while (!interrupted_ && in_flight_.size() < args_.concurrency && !waiting_.empty()) {
    job j = std::move(waiting_.front());
    waiting_.pop_front();
    j.started = clock::now();
    const std::uint64_t id = next_id_++;
    auto& signal = in_flight_[id] = std::make_unique<boost::asio::cancellation_signal>();
    client_.async_submit(
        j.what, boost::asio::bind_cancellation_slot(
                    signal->slot(), [this, id, j](outcome o) { on_outcome(id, j, std::move(o)); }));
  }
}

void load_run::on_outcome(std::uint64_t id, const job& j, outcome o) {
  in_flight_.erase(id);
  count(o);
  // Measured here in microseconds: on loopback most intents take well under a millisecond.
  latencies_.push_back(
      std::chrono::duration_cast<std::chrono::microseconds>(clock::now() - j.started));
  if (j.is_order && args_.pay) {
    std::optional<std::string> order_id;
    if (o.kind() == outcome_kind::succeeded && !interrupted_) order_id = order_id_of(o);
    if (order_id) {
      // Payments go first: a created order should not wait behind every other order.
      waiting_.push_front(
          {orders::pay(*order_id, {.amount_minor = j.amount_minor, .currency = "EUR"}),
           j.amount_minor, false});
    } else {
      never_sent(1);  // its payment never leaves: nothing happened
    }
  }
  bar_.update(current());
  check_finished();
  fill();
}

void load_run::count(const outcome& o) {
  ++done_;
  add(counts_, o.kind());
  if (o.recovered_by_lookup()) ++recovered_;
}

void load_run::never_sent(std::uint64_t n) {
  counts_.not_sent += n;
  done_ += n;
}

void load_run::check_finished() {
  if (finished_ || done_ != total_) return;
  finished_ = true;
  on_finished_();
}

}  // namespace idem::cli
