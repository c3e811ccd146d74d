#pragma once
// The completer: drives PROCESSING records whose lease expired to their end without waiting for
// their client, as rocket-rides-atomic's completer does. Such a record's executor crashed, timed
// out on the provider, or its process died; its client may never come back. The completer takes
// the lease over (the same compare-and-swap a retry uses) and runs the stored request from its
// recovery point, so the outcome is exactly what a retry with the same key would have produced:
// a charge the provider made is kept (or refunded if the order moved on), never made twice.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace idem::mock {

struct server_state;  // state/server_state.hpp

enum class settle_outcome {
  settled,          ///< the record is COMPLETED now
  running,          ///< its lease is live (or someone else took it over): left alone
  gone,             ///< no such record, or it is already COMPLETED
  unknown_request,  ///< written by a server that did not keep the request: left to a retry
};

/// What a PROCESSING record keeps so that the completer can run it: `{"path": ..., "body": ...}`
/// with the operation's input (operation_input), not the client's whole body; completion clears
/// it (record_store::complete). `path` must be valid UTF-8: match_route() finds no route for a
/// path that is not visible ASCII, so no such path gets here.
[[nodiscard]] std::string request_for_completer(std::string_view path, const nlohmann::json& body);

/// Settles one record if its lease has expired. Runs synchronously on the server's thread (no
/// injected faults); throws on storage failures, leaving the record to the next attempt.
settle_outcome settle_abandoned(server_state& state, std::int64_t record_id);

/// Settles up to `limit` abandoned records, oldest first; returns how many it settled. Failures of
/// single records are logged and skipped.
std::size_t complete_abandoned(server_state& state, std::size_t limit = 100);

}  // namespace idem::mock
