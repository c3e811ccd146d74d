// What durability costs per intent (Google Benchmark): each intent is journaled as the client
// journals it -- `created` and `attempt_started` waited for (nothing leaves before they are
// durable), `attempt_finished` not waited for, `outcome_reported` waited for (so the intent is
// durable as a whole when it ends) -- with synchronous=FULL or NORMAL, one intent at a time or
// 16 in flight (group commit). Reports intents/s, the median and p99 time per intent, and
// commits per intent. The journal lives in a fresh directory under $TMPDIR (fsync cost is the
// disk's).
//
//   build/bench/idem_journal_bench [--benchmark_filter=in_flight:16]
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/temp_directory.hpp"
#include "idem/orders.hpp"
#include "idem/sqlite_journal.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

constexpr std::size_t intents_per_iteration = 64;

class scratch_dir : public idem::common::temp_directory {
 public:
  scratch_dir() : temp_directory("idem_journal_bench_") {}
};

// Drives `intents` through the journal, `in_flight` at a time: each slot starts its next
// intent when the previous one is durable.
class pipeline {
 public:
  pipeline(idem::sqlite_journal& j, boost::asio::io_context& io,
           const std::vector<idem::intent>& intents, std::vector<double>& latencies_us)
      : j_(j), io_(io), intents_(intents), latencies_us_(latencies_us) {}

  void run(std::size_t in_flight) {
    for (std::size_t i = 0; i < in_flight; ++i)
      start_next();
    io_.restart();
    io_.run();
  }
  [[nodiscard]] bool failed() const { return failed_; }

 private:
  void start_next() {
    if (next_ == intents_.size()) return;
    const idem::intent& what = intents_[next_++];
    const auto t = clock_type::now();
    const auto now = std::chrono::system_clock::now();
    auto ex = io_.get_executor();
    j_.async_write(
        idem::events::created{.what = what, .principal = "sha256:bench", .at = now}, ex,
        [this, &what, t, now, ex](std::error_code ec) {
          failed_ = failed_ || ec;
          j_.async_write(
              idem::events::attempt_started{.key = what.key(), .number = 1, .at = now}, ex,
              [this, &what, t, now, ex](std::error_code ec) {
                failed_ = failed_ || ec;
                j_.write(idem::events::attempt_finished{.key = what.key(),
                                                        .number = 1,
                                                        .at = now,
                                                        .cls = idem::attempt_class::succeeded,
                                                        .status = 201,
                                                        .request_id = "req-1"});
                idem::outcome result(idem::outcome_fields{.kind = idem::outcome_kind::succeeded,
                                                          .status = 201,
                                                          .body = R"({"id":"ord_1"})"});
                j_.async_write(
                    idem::events::outcome_reported{
                        .key = what.key(), .at = now, .result = std::move(result)},
                    ex, [this, t](std::error_code ec) {
                      failed_ = failed_ || ec;
                      const std::chrono::duration<double, std::micro> took = clock_type::now() - t;
                      latencies_us_.push_back(took.count());
                      start_next();
                    });
              });
        });
  }

  idem::sqlite_journal& j_;
  boost::asio::io_context& io_;
  const std::vector<idem::intent>& intents_;
  std::vector<double>& latencies_us_;
  std::size_t next_ = 0;
  bool failed_ = false;
};

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  const auto at = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(at), v.end());
  return v[at];
}

void BM_JournalIntent(benchmark::State& state) {
  const auto durability =
      state.range(0) == 0 ? idem::journal_durability::full : idem::journal_durability::normal;
  const auto in_flight = static_cast<std::size_t>(state.range(1));
  scratch_dir dir;
  std::error_code ec;
  std::string why;
  auto journal = idem::sqlite_journal::open(
      {.path = dir.file("bench.db"), .durability = durability}, ec, &why);
  if (!journal) {
    state.SkipWithError(("cannot open the journal: " + why).c_str());
    return;
  }
  boost::asio::io_context io;
  std::vector<double> latencies_us;
  std::int64_t n = 0;
  bool failed = false;
  const auto commits_before = journal->commits();
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<idem::intent> intents;
    intents.reserve(intents_per_iteration);
    for (std::size_t i = 0; i < intents_per_iteration; ++i) {
      intents.push_back(idem::orders::create(
          {.merchant_order_id = "bench-" + std::to_string(n++),
           .customer_id = "c-1",
           .currency = "EUR",
           .amount_minor = 1500,
           .items = {{.sku = "book", .quantity = 3, .unit_price_minor = 500}}}));
    }
    state.ResumeTiming();
    pipeline p(*journal, io, intents, latencies_us);
    p.run(in_flight);
    failed = failed || p.failed();
  }
  if (failed) state.SkipWithError("a journal write failed");
  state.SetItemsProcessed(n);
  state.counters["p50_us"] = percentile(latencies_us, 0.50);
  state.counters["p99_us"] = percentile(latencies_us, 0.99);
  state.counters["commits_per_intent"] =
      n ? static_cast<double>(journal->commits() - commits_before) / static_cast<double>(n) : 0;
}
BENCHMARK(BM_JournalIntent)
    ->ArgsProduct({{0, 1}, {1, 16}})
    ->ArgNames({"normal", "in_flight"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
