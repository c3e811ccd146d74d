#pragma once
// Runs one claimed execution, detached from the request that started it (so that a client that
// hangs up does not stop it): the execution-stage faults, the operation, then the reply with the
// after-commit faults. The request that started it waits on the record's signal for the result.

#include <boost/asio/awaitable.hpp>
#include <memory>
#include <optional>

#include "mock_server/http_message.hpp"
#include "mock_server/operation.hpp"
#include "mock_server/server_state.hpp"

namespace idem::mock {

/// Shared between the execution and the request waiting for it.
struct execution_task {
  execution exec;
  std::optional<reply> result;  ///< set once the execution ended
};

/// Never throws: storage failures become `500 internal` with the key freed (nothing happened
/// yet) or the lease expired (after a side effect). Notifies the record's waiters at the end.
boost::asio::awaitable<void> run_execution(server_state& state,
                                           std::shared_ptr<execution_task> task);

}  // namespace idem::mock
