#include "mock_server/idempotency/idempotent_post.hpp"

#include "mock_server/state/server_state.hpp"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <utility>

#include "mock_server/http/canonical_json.hpp"
#include "mock_server/http/key_header.hpp"
#include "mock_server/http/media_type.hpp"
#include "mock_server/http/prefer_header.hpp"
#include "mock_server/http/problem.hpp"
#include "mock_server/idempotency/claim_decision.hpp"
#include "mock_server/idempotency/completer.hpp"
#include "mock_server/idempotency/execution_runner.hpp"
#include "mock_server/idempotency/fingerprint.hpp"
#include "mock_server/idempotency/operation.hpp"
#include "mock_server/storage/ids.hpp"

namespace idem::mock {

namespace asio = boost::asio;
using std::chrono::steady_clock;

namespace {

// ---- checks before the record is touched (not stored, the key stays free) ----

std::optional<response> check_key(const request& req, std::string& key) {
  auto parsed = parse_idempotency_key(req);
  if (auto* k = std::get_if<std::string>(&parsed)) {
    key = std::move(*k);
    return std::nullopt;
  }
  if (std::get<key_error>(parsed) == key_error::missing) {
    return make_problem(400, "idempotency-key-missing",
                        "every POST needs an Idempotency-Key header");
  }
  return make_problem(400, "idempotency-key-invalid",
                      "Idempotency-Key must be 1-255 visible ASCII characters, sent once");
}

// A body that is not JSON: the validation-failed answer the Orders API gives for any other
// body it cannot take, with one error for the whole body.
response body_not_json() {
  return make_problem(
      400, "validation-failed", "the request body is not valid",
      {{"errors",
        nlohmann::json::array({{{"field", ""}, {"message", "the body is not valid JSON"}}})}});
}

// Contract section 1: bodies are JSON. A form or text body that happens to parse as JSON is
// still not what the client meant to send.
std::optional<response> check_content_type(const request& req) {
  const bool ok =
      req.header_count("Content-Type") == 1 && is_json_media_type(*req.header("Content-Type"));
  if (ok) return std::nullopt;
  auto res = make_problem(415, "unsupported-media-type",
                          "send the body as Content-Type: application/json");
  res.set_header("Accept-Post", "application/json");
  return res;
}

// ---- answers ----

response replay(const stored_response& stored) {
  response res{.status = stored.status, .headers = stored.headers, .body = stored.body};
  res.set_header("Idempotent-Replayed", "true");
  return res;
}

response accepted(const std::string& request_id) {
  auto res = make_json(202, {{"request_id", request_id}, {"state", "PROCESSING"}});
  res.set_header("Location", "/v1/requests/" + request_id);
  return res;
}

response in_progress(server_state& state, const idempotency_record& record) {
  return op::in_progress(state, record.lease_expires_at_ms, record.request_id,
                         "a request with this Idempotency-Key is still being processed");
}

// What forces the claim to commit on its own before the execution: a takeover (resuming from a
// recovery point is the split path's job), an operation that calls the payment provider or the
// completer (they commit on their own, outside any transaction), and an execution-stage fault
// (a delay or a hold keeps the record PROCESSING while it waits; a crash must leave it so). A
// first create has none of them.
bool runs_in_claim_transaction(const execution& exec, const std::optional<fault_rule>& fault) {
  return exec.route == route_id::create_order && !exec.takeover && !fault;
}

steady_clock::time_point lease_end_as_steady(server_state& state, const idempotency_record& r) {
  auto left = std::max<std::int64_t>(0, r.lease_expires_at_ms - state.clock.lease_now_ms());
  return steady_clock::now() + std::chrono::milliseconds(left);
}

}  // namespace

asio::awaitable<reply> handle_idempotent_post(server_state& state, const request& req,
                                              const route_match& route,
                                              const std::string& principal) {
  std::string key;
  if (auto bad = check_key(req, key)) co_return reply{.res = std::move(*bad)};
  if (req.body_too_large) {
    co_return reply{
        .res = make_problem(413, "payload-too-large", "the request body exceeds 65536 bytes"),
        .close = true};
  }
  if (auto bad = check_content_type(req)) co_return reply{.res = std::move(*bad)};
  auto body = parse_json(req.body);
  if (!body) {
    co_return reply{.res = body_not_json()};
  }
  if (auto bad = check_body(state, route.id, principal, route.param, *body)) {
    co_return reply{.res = std::move(*bad)};
  }

  const std::string path{req.path()};
  const std::string business_id = route.id == route_id::create_order
                                      ? body->at("merchant_order_id").get<std::string>()
                                      : std::string{};
  const auto prefs = parse_preferences(req);
  const auto max_wait =
      std::min<std::chrono::milliseconds>(state.options.max_wait, std::chrono::seconds(10));
  // parse_preferences caps wait=N, so this conversion to milliseconds cannot overflow.
  const auto asked_wait =
      std::min<std::chrono::milliseconds>(prefs.wait.value_or(std::chrono::seconds(0)), max_wait);
  const auto wait_until = steady_clock::now() + asked_wait;

  // Only what the operation reads goes on: the order and the record keep no unknown fields.
  auto input = operation_input(route.id, *body);
  claim_request claim{
      .scope = {principal, "POST " + std::string{route.route_template}, key},
      .fingerprint = request_fingerprint(req.method, path, *body),
      .request_id = random_id("req"),
      .lease_owner = state.next_lease_owner(),
      .now_ms = 0,
      .lease_now_ms = 0,
      .lease_expires_at_ms = 0,
      .request = request_for_completer(path, input),
  };

  while (true) {
    claim.now_ms = state.clock.now_ms();
    claim.lease_now_ms = state.clock.lease_now_ms();
    claim.lease_expires_at_ms = state.lease_expiry_from_now();
    transaction txn{state.db};
    auto d = decide(state, claim, business_id);
    if (d.what != verdict::execute) txn.commit();
    switch (d.what) {
      case verdict::mismatch:
        co_return reply{
            .res = make_problem(422, "idempotency-key-mismatch",
                                "this Idempotency-Key was used with a different request body",
                                {{"request_id", d.record.request_id}})};
      case verdict::replay:
        co_return reply{.res = replay(*d.record.response)};
      case verdict::execute: {
        auto task = std::make_shared<execution_task>();
        task->exec = execution{
            .record_id = d.record.id,
            .owner = d.record.lease_owner,
            .request_id = d.record.request_id,
            .principal = principal,
            .key = key,
            .route = route.id,
            .method = req.method,
            .route_template = std::string{route.route_template},
            .path = path,
            .resource_param = route.param,
            .body = std::move(input),  // this case always returns: it is not needed again
            .recovery_point = d.record.recovery_point,
            .takeover = d.takeover,
            .crash = false,
            .settling = false,
        };
        auto fault = execution_fault(state, task->exec);
        if (runs_in_claim_transaction(task->exec, fault)) {
          // One commit for claim, order and completion: the record goes from absent to
          // COMPLETED atomically, so a kill at any point leaves either nothing (the key is free)
          // or the order with its stored answer. A throw rolls everything back (500, key free).
          auto result = create_order_in(state, task->exec, txn);
          co_return reply_for(state, task->exec, result);
        }
        hold_lease_through(state, task->exec, fault);
        txn.commit();  // the record is PROCESSING (its lease held) while the execution runs
        asio::co_spawn(co_await asio::this_coro::executor,
                       run_execution(state, task, std::move(fault)), asio::detached);
        const auto async_deadline =
            prefs.respond_async
                ? steady_clock::now() + (prefs.wait ? asked_wait : state.options.async_after)
                : steady_clock::now() + std::chrono::hours(24);
        while (!task->result && steady_clock::now() < async_deadline) {
          co_await state.signals.wait(d.record.id, async_deadline);
        }
        if (task->result) co_return std::move(*task->result);
        co_return reply{.res = accepted(d.record.request_id)};
      }
      case verdict::busy:
        if (steady_clock::now() < wait_until) {
          co_await state.signals.wait(d.record.id,
                                      std::min(wait_until, lease_end_as_steady(state, d.record)));
          continue;
        }
        if (prefs.respond_async) co_return reply{.res = accepted(d.record.request_id)};
        co_return reply{.res = in_progress(state, d.record)};
    }
  }
}

}  // namespace idem::mock
