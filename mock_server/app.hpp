#pragma once
// The mock server's request handler: the contract's order of checks (route -> arrival faults ->
// auth -> key -> size -> JSON and validation -> fingerprint -> record state) and the dispatch to
// the tenant API, the idempotency layer and the admin API.

#include <boost/asio/awaitable.hpp>

#include "mock_server/http/http_message.hpp"

namespace idem::mock {

struct server_state;  // state/server_state.hpp

/// Handles one request against `state`. Never throws: storage failures become `500 internal`,
/// a database locked by another process `503 unavailable` with Retry-After (nothing was done).
boost::asio::awaitable<reply> handle_request(server_state& state, request req);

/// The principal a bearer token stands for (a hash, so tokens are never stored).
[[nodiscard]] std::string principal_of(const server_state& state, std::string_view token);

}  // namespace idem::mock
