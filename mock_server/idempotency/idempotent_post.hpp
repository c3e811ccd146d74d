#pragma once
// The idempotency layer of contract section 3 for one POST: key and body checks, fingerprint,
// claim by unique constraint, replay, 422 on mismatch, 409/wait/202 while another executor holds
// the lease, takeover of an expired lease, and the execution itself with its fault stages.

#include <boost/asio/awaitable.hpp>
#include <string>

#include "mock_server/http/http_message.hpp"
#include "mock_server/http/route.hpp"

namespace idem::mock {

struct server_state;  // state/server_state.hpp

/// Handles an authenticated POST to create_order, pay_order or cancel_order. Never throws for
/// client errors; storage failures become `500 internal` and leave the key free (or, after a
/// side effect, the lease expired for a takeover).
boost::asio::awaitable<reply> handle_idempotent_post(server_state& state, const request& req,
                                                     const route_match& route,
                                                     const std::string& principal);

}  // namespace idem::mock
