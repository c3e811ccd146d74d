#pragma once
// The read side of the Orders API: GET /v1/orders/{id}, GET /v1/orders?merchant_order_id=X and
// GET /v1/requests/{id}. Every read is scoped to the calling principal.

#include "mock_server/http/http_message.hpp"
#include "mock_server/http/route.hpp"

namespace idem::mock {

struct server_state;  // state/server_state.hpp

/// Answers one authenticated GET of the tenant API.
[[nodiscard]] response handle_tenant_get(server_state& state, const request& req,
                                         const route_match& route, const std::string& principal);

}  // namespace idem::mock
