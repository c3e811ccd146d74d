#pragma once
// Maps a method and path onto one of the server's routes (or 404 / 405).

#include <string>
#include <string_view>

namespace idem::mock {

enum class route_id {
  create_order,     // POST /v1/orders
  list_orders,      // GET  /v1/orders?merchant_order_id=X
  get_order,        // GET  /v1/orders/{id}
  pay_order,        // POST /v1/orders/{id}/payments
  cancel_order,     // POST /v1/orders/{id}/cancel
  get_request,      // GET  /v1/requests/{id}
  healthz,          // GET  /healthz
  metrics,          // GET  /metrics
  mock_faults,      // PUT/DELETE/GET /_mock/faults
  mock_stats,       // GET  /_mock/stats
  mock_clock,       // POST /_mock/clock
  mock_reset,       // POST /_mock/reset
  mock_complete,    // POST /_mock/complete
  mock_invariants,  // GET /_mock/invariants
  mock_principals,  // PUT/DELETE /_mock/principals
};

enum class route_status { found, not_found, method_not_allowed };

struct route_match {
  route_status status = route_status::not_found;
  route_id id = route_id::healthz;
  std::string_view route_template;  ///< e.g. "/v1/orders/{id}/payments"
  std::string param;                ///< the {id} segment, if the route has one
  std::string allow;                ///< for 405: the allowed methods, e.g. "GET, HEAD"
};

/// Resolves a request. Path segments must be non-empty; a trailing slash does not match; a path
/// with a byte outside visible ASCII (a control character, a raw non-ASCII byte) matches
/// nothing, so every route's path and {id} are ASCII text. HEAD
/// matches wherever GET does (the GET route is found), and `allow` lists HEAD after every GET.
[[nodiscard]] route_match match_route(std::string_view method, std::string_view path);

/// True for routes under /v1 (the tenant API, counted in `requests` and subject to faults).
[[nodiscard]] bool is_tenant_route(route_id id) noexcept;

}  // namespace idem::mock
