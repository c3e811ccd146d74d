// The mock server's idempotency layer under sequences of requests, run through the real handler
// (mock_server/app.hpp handle_request) over a fresh in-memory database per input: creates,
// payments and cancels under a few keys, tokens and business IDs, `Prefer: respond-async` and
// `wait`, reads of the orders and status URLs the answers point at, clock jumps past leases and
// TTLs, and resets. Executions run on the same io_context and interleave with the requests
// wherever a request waits or the sequence yields.
//
// Input, as text, one step a line (at most 32):
//   METHOD TARGET TOKEN KEY PREFER BODY...   a request; "-" for no Authorization, no
//                                            Idempotency-Key, no Prefer; in TARGET, "{order}" and
//                                            "{request}" stand for the last order and status URL
//                                            an answer pointed at (Location)
//   yield                                    let executions started behind a 202 run
//   advance SECONDS                          move the server clock (admin API)
//   reset                                    wipe everything (admin API)
//
// Properties: the handler never fails (no 500); a request that got a 2xx answer gets the same
// status and body again (or hears that it is still processing) until the clock moves or the
// server is reset; no order is ever charged twice.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>

#include "fuzz/fuzz_check.hpp"
#include "fuzz/input_lines.hpp"
#include "mock_server/admin/stats_snapshot.hpp"
#include "mock_server/app.hpp"
#include "mock_server/state/server_state.hpp"

namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using idem::mock::request;

constexpr std::string_view admin_token = "fuzz-admin";
constexpr std::size_t max_steps = 32;

idem::mock::server_options fuzz_server_options() {
  idem::mock::server_options o;
  o.db_path = ":memory:";
  o.admin_token = admin_token;
  o.async_after = 0ms;  // respond-async answers 202 at once; the execution goes on behind it
  o.max_wait = 200ms;   // waits end when the awaited execution does, long before this
  return o;
}

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

bool still_processing(const idem::mock::response& res) {
  return res.status == 202 ||
         (res.status == 409 &&
          res.body.find("idempotency-request-in-progress") != std::string::npos);
}

class sequence {
 public:
  sequence(idem::mock::server_state& state, std::string_view steps)
      : state_(state), steps_(steps) {}

  asio::awaitable<void> run() {
    for (std::size_t i = 0; i < max_steps && !steps_.empty(); ++i) {
      std::string_view words = idem::fuzz::next_line(steps_);
      const std::string_view first = idem::fuzz::next_word(words);
      if (first == "yield") {
        co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
      } else if (first == "advance") {
        co_await admin("/_mock/clock", R"({"advance_s":)" + std::string(words) + "}");
      } else if (first == "reset") {
        co_await admin("/_mock/reset", "");
      } else {
        co_await send(std::string(first), words);
      }
    }
  }

 private:
  asio::awaitable<idem::mock::reply> call(request req) {
    auto out = co_await idem::mock::handle_request(state_, std::move(req));
    IDEM_FUZZ_CHECK(out.res.status >= 100 && out.res.status <= 599);
    IDEM_FUZZ_CHECK(out.res.status != 500);
    if (auto location = out.res.header("Location")) {
      (location->starts_with("/v1/requests/") ? last_request_ : last_order_) = *location;
    }
    co_return out;
  }

  asio::awaitable<void> send(std::string method, std::string_view words) {
    request req{.method = std::move(method), .target = {}, .headers = {}, .body = {}};
    req.target = std::string(idem::fuzz::next_word(words));
    replace_all(req.target, "{order}", last_order_);
    replace_all(req.target, "{request}", last_request_);
    const std::string_view token = idem::fuzz::next_word(words);
    if (token != "-") req.headers.emplace_back("Authorization", "Bearer " + std::string(token));
    const std::string_view key = idem::fuzz::next_word(words);
    if (key != "-") req.headers.emplace_back("Idempotency-Key", std::string(key));
    const std::string_view prefer = idem::fuzz::next_word(words);
    if (prefer != "-") req.headers.emplace_back("Prefer", std::string(prefer));
    req.body = std::string(words);
    // No faults: a fault rule could stall every later step of the run.
    if (req.target.starts_with("/_mock/faults")) co_return;

    const identity id{std::string(token), std::string(key), req.method, req.target, req.body};
    const auto res = (co_await call(std::move(req))).res;
    if (std::get<2>(id) != "POST") co_return;
    if (auto seen = first_answers_.find(id); seen != first_answers_.end()) {
      IDEM_FUZZ_CHECK(still_processing(res) ||
                      (res.status == seen->second.status && res.body == seen->second.body));
    } else if (res.status >= 200 && res.status <= 299 && res.status != 202) {
      first_answers_.emplace(id, res);
    }
  }

  asio::awaitable<void> admin(std::string target, std::string body) {
    const auto res =
        (co_await call(request{.method = "POST",
                               .target = std::move(target),
                               .headers = {{"Authorization", "Bearer " + std::string(admin_token)}},
                               .body = std::move(body)}))
            .res;
    (void)res;
    // Records may have expired or been wiped: a key may start afresh.
    first_answers_.clear();
  }

  // Token, key, method, target, body: a request as the idempotency layer tells requests apart.
  using identity = std::tuple<std::string, std::string, std::string, std::string, std::string>;

  idem::mock::server_state& state_;
  std::string_view steps_;
  std::string last_order_ = "/v1/orders/none";
  std::string last_request_ = "/v1/requests/none";
  std::map<identity, idem::mock::response> first_answers_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  asio::io_context io{1};
  idem::mock::server_state state{fuzz_server_options()};
  sequence steps{state, idem::fuzz::as_text(data, size)};
  asio::co_spawn(io, steps.run(), asio::detached);
  io.run();  // returns once the sequence and every execution it started have finished
  IDEM_FUZZ_CHECK(idem::mock::stats_snapshot(state).at("orders_with_multiple_charges") == 0);
  return 0;
}
