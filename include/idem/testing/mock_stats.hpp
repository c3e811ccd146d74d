#pragma once
/// @file
/// The mock server's counters (`GET /_mock/stats`, docs/MOCK_SERVER.md "Stats"), typed.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>

#include "idem/testing/mock_result.hpp"

namespace idem::kit {

/// What the server counted. They survive a restart of the server on the same database.
struct mock_stats {
  std::int64_t requests = 0;                      ///< requests to /v1/*
  std::int64_t orders = 0;                        ///< orders stored
  std::int64_t payments = 0;                      ///< payments stored
  std::int64_t provider_charges = 0;              ///< charges captured (declines are none)
  std::int64_t provider_refunds = 0;              ///< refunds made by the provider
  std::int64_t replays = 0;                       ///< stored answers replayed for a repeated key
  std::int64_t key_mismatches = 0;                ///< a key reused with another body (422)
  std::int64_t in_progress_conflicts = 0;         ///< 409 while the key was still processing
  std::int64_t business_id_conflicts = 0;         ///< executions refused: merchant_order_id taken
  std::int64_t invalid_state_transitions = 0;     ///< executions refused by the order's state
  std::int64_t faults_injected = 0;               ///< faults that fired
  std::int64_t orders_with_multiple_charges = 0;  ///< net of refunds: 0 when all is well
  std::int64_t max_keys_per_business_id = 0;      ///< 1 (or 0) for a well-behaved client
  std::int64_t idempotency_records = 0;           ///< records stored
  std::int64_t records_purged = 0;                ///< records removed after their TTL
  std::int64_t abandoned_settled = 0;             ///< PROCESSING records the completer finished
  nlohmann::json raw = nlohmann::json::object();  ///< the answer as sent, newer fields included
};

/// Reads the answer of `GET /_mock/stats`; a missing or non-integer counter is
/// mock_errc::bad_answer naming it.
[[nodiscard]] mock_result<mock_stats> parse_mock_stats(const nlohmann::json& answer);

/// One line: "requests=12 orders=3 ...", every counter.
std::ostream& operator<<(std::ostream& out, const mock_stats& s);

}  // namespace idem::kit
