#include "mock_server/app.hpp"

#include "mock_server/state/server_state.hpp"

#include <iostream>

#include "mock_server/admin/admin_api.hpp"
#include "mock_server/admin/admin_token.hpp"
#include "mock_server/admin/stats_snapshot.hpp"
#include "mock_server/http/bearer_token.hpp"
#include "mock_server/http/problem.hpp"
#include "mock_server/http/route.hpp"
#include "mock_server/idempotency/fingerprint.hpp"
#include "mock_server/idempotency/idempotent_post.hpp"
#include "mock_server/orders/tenant_api.hpp"

namespace idem::mock {

namespace asio = boost::asio;

namespace {

std::optional<reply> arrival_fault(server_state& state, const request& req,
                                   const route_match& route) {
  auto rule = state.faults.pick(fault_stage::arrival, req.method, route.route_template, req.path());
  if (!rule) return std::nullopt;
  state.stats.increment("faults_injected");
  if (rule->fault == fault_kind::reset_before_processing) {
    return reply{.res = {}, .how = delivery::reset, .stall_for = {}, .close = true};
  }
  const int status = rule->status;
  auto res = status == 429
                 ? make_problem(429, "rate-limited", "injected fault: too many requests")
                 : make_problem(status, status == 500 ? "internal" : "unavailable",
                                "injected fault: the server could not process the request");
  if (rule->retry_after_s) res.set_header("Retry-After", std::to_string(*rule->retry_after_s));
  return reply{.res = std::move(res)};
}

asio::awaitable<reply> dispatch(server_state& state, const request& req) {
  auto route = match_route(req.method, req.path());
  if (route.status == route_status::not_found) {
    if (req.path().starts_with("/v1/")) state.stats.increment("requests");
    co_return reply{.res =
                        make_problem(404, "not-found", "no route for " + std::string{req.path()})};
  }
  if (route.status == route_status::method_not_allowed) {
    if (req.path().starts_with("/v1/")) state.stats.increment("requests");
    auto res = make_problem(405, "method-not-allowed",
                            req.method + " is not allowed here; use " + route.allow);
    res.set_header("Allow", route.allow);
    co_return reply{.res = std::move(res)};
  }
  if (req.method == "HEAD") {
    // HEAD took the GET route: it is answered as that GET (fault rules for GET included), and
    // the transport writes the answer's header without its content (RFC 9110 section 9.3.2).
    request get = req;
    get.method = "GET";
    co_return co_await dispatch(state, get);
  }
  switch (route.id) {
    case route_id::healthz:
      co_return reply{.res = make_json(200, {{"status", "ok"}})};
    case route_id::metrics: {
      response res{.status = 200, .headers = {}, .body = prometheus_metrics(state)};
      res.set_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      co_return reply{.res = std::move(res)};
    }
    case route_id::mock_faults:
    case route_id::mock_stats:
    case route_id::mock_clock:
    case route_id::mock_reset:
    case route_id::mock_complete:
    case route_id::mock_invariants:
    case route_id::mock_principals:
      co_return reply{.res = handle_admin(state, req, route)};
    default:
      break;
  }

  state.stats.increment("requests");
  if (auto fault = arrival_fault(state, req, route)) co_return std::move(*fault);
  auto token = bearer_token(req);
  if (!token) {
    auto res = make_problem(401, "unauthenticated", "send Authorization: Bearer <token>");
    res.set_header("WWW-Authenticate", "Bearer");
    co_return reply{.res = std::move(res),
                    .how = delivery::respond,
                    .stall_for = {},
                    .close = req.body_too_large};
  }
  // The admin token opens /_mock/* only. Accepted here, it would invite apps to be configured
  // with it, and every proxy log of their requests would then hold the key to the admin API.
  if (is_admin_token(*token, state.options.admin_token)) {
    co_return reply{.res = make_problem(403, "forbidden",
                                        "the admin token is not a tenant token; use your own"),
                    .how = delivery::respond,
                    .stall_for = {},
                    .close = req.body_too_large};
  }
  const auto principal = principal_of(state, *token);
  if (req.method == "POST") co_return co_await handle_idempotent_post(state, req, route, principal);
  co_return reply{.res = handle_tenant_get(state, req, route, principal)};
}

response database_locked() {
  auto res = make_problem(503, "unavailable",
                          "the database is locked by another process; nothing was done, retry");
  res.set_header("Retry-After", "1");
  return res;
}

reply finish(server_state& state, const request& req, reply out) {
  if (req.body_too_large) out.close = true;
  if (out.how != delivery::reset) ++state.responses_by_status[out.res.status];
  return out;
}

}  // namespace

std::string principal_of(const server_state& state, std::string_view token) {
  // A token named with --principal or PUT /_mock/principals acts as its principal (a rotated
  // token keeps its keys' scope); any other token is a principal of its own. The two never
  // meet: the inputs of their hashes differ.
  if (auto it = state.principals.find(std::string(token)); it != state.principals.end()) {
    return "p_" + sha256_hex("principal\n" + it->second).substr(0, 32);
  }
  return "p_" + sha256_hex(token).substr(0, 32);
}

asio::awaitable<reply> handle_request(server_state& state, request req) {
  reply out;
  try {
    out = co_await dispatch(state, req);
  } catch (const std::exception& e) {
    if (const auto* db = dynamic_cast<const sqlite_error*>(&e); db != nullptr && db->busy()) {
      // Another process holds the database's write lock (the server's statements do not wait
      // for it: server_state.cpp). What reaches here failed before anything committed: the
      // claim's BEGIN IMMEDIATE, or a statement or the COMMIT of a transaction that then rolled
      // back as a whole (a first create runs in its claim's transaction). Executions that may
      // have committed a step answer for themselves (execution_runner.cpp).
      out = reply{.res = database_locked()};
      co_return finish(state, req, std::move(out));
    }
    // The route's template, never the target: a target's query (a merchant_order_id) and its
    // path segments (IDs) are a client's data, which a log must not collect.
    const auto route = match_route(req.method, req.path()).route_template;
    std::cerr << "idem-mock-server: " << req.method << ' '
              << (route.empty() ? std::string_view{"(no route)"} : route) << " failed: " << e.what()
              << '\n';
    out = reply{.res = make_problem(500, "internal", "the server failed; nothing was stored")};
  }
  co_return finish(state, req, std::move(out));
}

}  // namespace idem::mock
