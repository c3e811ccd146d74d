#pragma once
// The test-control endpoints of contract section 6 under /_mock/, guarded by the admin token.

#include "mock_server/http/http_message.hpp"
#include "mock_server/http/route.hpp"

namespace idem::mock {

struct server_state;  // state/server_state.hpp

/// Handles /_mock/faults (rules or a preset by name), /_mock/stats, /_mock/invariants,
/// /_mock/clock, /_mock/complete and /_mock/reset. A missing bearer token is
/// 401; any token other than the admin token (a tenant's) is 403 `forbidden`.
[[nodiscard]] response handle_admin(server_state& state, const request& req,
                                    const route_match& route);

}  // namespace idem::mock
