#pragma once
// Everything that configures one mock server (section 7's command line maps onto this).

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "mock_server/faults/fault_rules.hpp"
#include "mock_server/http/http_server.hpp"
#include "mock_server/storage/server_clock.hpp"

namespace idem::mock {

struct server_options {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;                ///< 0: any free port
  std::string db_path = "idem-mock.db";  ///< ":memory:" for a throwaway run
  std::string admin_token;               ///< required: guards /_mock/*
  /// Tokens that belong to one named principal (`--principal TOKEN=NAME`): a backend maps an
  /// account's rotated tokens to that account, so keys are scoped by the name. A token not
  /// named here is a principal of its own (contract section 1).
  std::map<std::string, std::string> principals{};
  std::chrono::milliseconds key_ttl = std::chrono::hours(24);
  std::chrono::milliseconds lease = std::chrono::seconds(30);
  std::chrono::milliseconds async_after = std::chrono::seconds(2);
  /// Upper bound for `Prefer: wait=N` (the contract caps it at 10 s in any case).
  std::chrono::milliseconds max_wait = std::chrono::seconds(10);
  std::chrono::milliseconds reaper_interval = std::chrono::seconds(5);
  /// How often the completer looks for PROCESSING records whose lease expired (their executor
  /// crashed, timed out on the provider or lost its client) and drives them to their end.
  std::chrono::milliseconds completer_interval = std::chrono::seconds(5);
  /// How often the traffic counters counted in memory (counters.hpp) are written to the
  /// database: what a kill -9 can lose of them. Also written on a stats read and on shutdown.
  std::chrono::milliseconds counters_interval = std::chrono::seconds(1);
  std::optional<fault_config> faults;  ///< initial rules (from --faults FILE)
  http_server_options http;
  /// Where the server reads time (tests inject their own; empty: the real clocks).
  clock_sources clocks;
};

}  // namespace idem::mock
