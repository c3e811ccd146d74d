#include "mock_server/admin/admin_api.hpp"

#include "mock_server/state/server_state.hpp"

#include <cmath>

#include "mock_server/admin/admin_token.hpp"
#include "mock_server/admin/invariant_checks.hpp"
#include "mock_server/admin/stats_snapshot.hpp"
#include "mock_server/faults/fault_presets.hpp"
#include "mock_server/http/bearer_token.hpp"
#include "mock_server/http/canonical_json.hpp"
#include "mock_server/http/problem.hpp"
#include "mock_server/idempotency/completer.hpp"
#include "mock_server/storage/schema.hpp"

namespace idem::mock {
namespace {

response bad_body(std::string field, std::string message) {
  return make_problem(
      400, "validation-failed", "the request body is not valid",
      {{"errors",
        nlohmann::json::array({{{"field", std::move(field)}, {"message", std::move(message)}}})}});
}

response faults(server_state& state, const request& req) {
  if (req.method == "GET") return make_json(200, to_json(state.faults.config()));
  if (req.method == "DELETE") {
    state.faults.clear();
    return response{.status = 204, .headers = {}, .body = {}};
  }
  auto body = parse_json(req.body);
  if (!body) return bad_body("", "the body is not valid JSON");
  auto parsed = parse_fault_request(*body);
  if (auto* error = std::get_if<std::string>(&parsed)) {
    auto colon = error->find(':');
    return bad_body(colon == std::string::npos ? "" : error->substr(0, colon), *error);
  }
  state.faults.configure(std::get<fault_config>(std::move(parsed)));
  return make_json(200, to_json(state.faults.config()));
}

response clock(server_state& state, const request& req) {
  auto body = parse_json(req.body);
  if (!body || !body->is_object()) return bad_body("", "expected {\"advance_s\": N}");
  auto it = body->find("advance_s");
  constexpr double max_advance_s = server_clock::max_offset.count() / 1000.0;
  const auto limits = "must be a number of seconds from 0 to " +
                      std::to_string(static_cast<std::int64_t>(max_advance_s));
  // Range-checked as a double before any conversion: llround of 1e300 is undefined behaviour.
  if (it == body->end() || !it->is_number() || !std::isfinite(it->get<double>()) ||
      it->get<double>() < 0 || it->get<double>() > max_advance_s) {
    return bad_body("advance_s", limits);
  }
  if (!state.clock.advance(std::chrono::milliseconds(std::llround(it->get<double>() * 1000.0)))) {
    return bad_body("advance_s", "the clock's total offset may not pass " +
                                     std::to_string(static_cast<std::int64_t>(max_advance_s)) +
                                     " s (about 100 years)");
  }
  // Leases and TTLs are measured on this clock: purge now and let waiters look again.
  state.reap();
  state.signals.notify_all();
  return make_json(
      200, {{"offset_s", state.clock.offset().count() / 1000.0}, {"now_ms", state.clock.now_ms()}});
}

// PUT: {"TOKEN": "NAME", ...} replaces which tokens act as a named principal; DELETE goes back
// to the command line's. The answer counts them, and never echoes a token.
response principals(server_state& state, const request& req) {
  if (req.method == "DELETE") {
    state.principals = state.options.principals;
    return make_json(200, {{"tokens", state.principals.size()}});
  }
  auto body = parse_json(req.body);
  if (!body || !body->is_object()) return bad_body("", "expected {\"TOKEN\": \"NAME\", ...}");
  std::map<std::string, std::string> next;
  for (const auto& [token, name] : body->items()) {
    if (token.empty() || !name.is_string() || name.get<std::string>().empty()) {
      return bad_body("", "every token maps to a non-empty principal name");
    }
    if (is_admin_token(token, state.options.admin_token)) {
      return bad_body("", "the admin token is not a tenant token");
    }
    next[token] = name.get<std::string>();
  }
  state.principals = std::move(next);
  return make_json(200, {{"tokens", state.principals.size()}});
}

response reset(server_state& state) {
  wipe_all(state.db);
  state.stats.discard_pending();
  state.load_counts();  // the tables are empty now: counts kept in memory start again from 0
  state.clock.reset();
  state.faults.clear();
  state.responses_by_status.clear();
  state.signals.notify_all();
  return response{.status = 204, .headers = {}, .body = {}};
}

}  // namespace

response handle_admin(server_state& state, const request& req, const route_match& route) {
  auto token = bearer_token(req);
  if (!token) {
    auto res = make_problem(401, "unauthenticated", "the admin token is required");
    res.set_header("WWW-Authenticate", "Bearer");
    return res;
  }
  if (!is_admin_token(*token, state.options.admin_token)) {
    return make_problem(403, "forbidden", "this endpoint needs the admin token");
  }
  switch (route.id) {
    case route_id::mock_faults:
      return faults(state, req);
    case route_id::mock_stats:
      return make_json(200, stats_snapshot(state));
    case route_id::mock_clock:
      return clock(state, req);
    case route_id::mock_complete:
      return make_json(200, {{"settled", complete_abandoned(state)}});
    case route_id::mock_reset:
      return reset(state);
    case route_id::mock_invariants:
      return make_json(200, check_invariants(state.db));
    case route_id::mock_principals:
      return principals(state, req);
    default:
      return make_problem(404, "not-found", "no such resource");
  }
}

}  // namespace idem::mock
