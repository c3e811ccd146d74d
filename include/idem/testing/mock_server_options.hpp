#pragma once
/// @file
/// How the test kit starts idem-mock-server (mock_server_process::start).

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "idem/testing/fault_set.hpp"
#include "idem/testing/find_mock_server.hpp"

namespace idem::kit {

/// Settings for one server. An aggregate with defaults that suit a test: a free loopback port,
/// a database in a temporary directory, no faults.
struct mock_server_options {
  /// The idem-mock-server to run; empty: looked up (find_mock_server: $IDEM_MOCK_SERVER, the
  /// installed package's bin directory, PATH).
  std::string binary{};
  /// The server of the installed package the app was built against (find_mock_server's third
  /// place): set from the app's build by the CMake package; rarely worth changing.
  std::string package_server = IDEM_TESTING_PACKAGE_MOCK_SERVER;
  /// Guards /_mock/*; mock_server_process::admin() uses it. Visible ASCII. The server gets it in
  /// a file of the kit's private directory (--admin-token-file), never on its command line.
  std::string admin_token = "idem-testing-admin";
  /// Tokens for the app under test (the server takes any bearer token as one principal; these
  /// are names to hand out, mock_server_process::tenant_token(i)). Must not hold the admin token.
  std::vector<std::string> tenant_tokens{"tenant-a", "tenant-b"};
  /// Tokens that act as one named principal (`--principal TOKEN=NAME`), e.g. an account's token
  /// before and after a refresh: its keys keep their scope across the rotation. Must not hold
  /// the admin token. Empty: every token is a principal of its own.
  std::map<std::string, std::string> principals{};
  /// A fault preset by name (`--faults preset:NAME`); empty: none. Not with `faults`.
  std::string preset{};
  /// Fault rules from the start (written to a file for `--faults`). Not with `preset`.
  std::optional<fault_set> faults{};
  /// The seed for `preset` or `faults` instead of their own (`--fault-seed`).
  std::optional<std::uint64_t> fault_seed{};
  /// How long an executor owns a PROCESSING record (`--lease`; server default 30 s). Short
  /// leases let crashed executions be taken over soon (crash_during_processing, a killed
  /// server).
  std::optional<std::chrono::milliseconds> lease{};
  /// How long completed records are kept (`--key-ttl`; server default 24 h).
  std::optional<std::chrono::milliseconds> key_ttl{};
  /// The SQLite file; empty: `mock.db` in the temporary directory, removed with it.
  std::string db_path{};
  /// Appended to the command line as they are (e.g. {"--async-after", "500ms"}).
  std::vector<std::string> extra_args{};
  /// How long the server may take to print its address before start() gives up.
  std::chrono::milliseconds start_timeout{30'000};
  /// How long stop() waits after SIGTERM before it kills the server.
  std::chrono::milliseconds stop_timeout{30'000};
};

}  // namespace idem::kit
