#pragma once
// The soak's run: idem-cli drives a mixed load through its journal against idem-mock-server
// under the seeded fault schedule, while both are SIGKILLed at seeded points of the progress
// (the client resumed from its journal, the server restarted on its database and port); then
// the faults stop and the client resumes until every intent is final.

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "idem/intent_store.hpp"
#include "idem_soak/fault_schedule.hpp"
#include "idem_soak/soak_options.hpp"
#include "idem_soak/work_dir.hpp"

namespace idem::soak {

/// The harness itself failed (a program would not start, a client ended in a way no run
/// should, the run outlived its time bound): no verdict about the system under test.
struct harness_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What happened during a run, for the figures and the checks.
struct chaos_record {
  std::uint64_t orders = 0;
  /// When each idem-cli process started (floored to the millisecond, as the journal's times
  /// are): where one run of an intent ends and the next begins.
  std::vector<wall_time> client_starts;
  unsigned client_kills = 0;
  unsigned server_kills = 0;
  unsigned chaos_resumes = 0;  ///< resumes after a client that ended with open intents
  unsigned calm_resumes = 0;   ///< resumes after the faults stopped
  /// Times the server ended without being told to (a finding: it is restarted and the run
  /// goes on), with how.
  std::vector<std::string> server_crashes;
  fault_tally faults;                 ///< fired, by kind (GET /_mock/faults before each change)
  std::uint64_t faults_injected = 0;  ///< the server's own count (GET /_mock/stats)
  nlohmann::json stats;               ///< GET /_mock/stats once everything ended
  /// The highest orders_with_multiple_charges of GET /_mock/stats while the chaos lasted (read
  /// with the fault counts).
  std::int64_t peak_multiple_charges = 0;
  std::chrono::milliseconds chaos_time{0};
  std::chrono::milliseconds calm_time{0};
};

/// Runs the load of `orders` orders (`planned` intents) as `o` says, in `dir`; progress lines go
/// to `log`. Throws harness_error when the harness cannot go on.
[[nodiscard]] chaos_record run_chaos(const soak_options& o, const work_dir& dir,
                                     std::uint64_t orders, std::uint64_t planned,
                                     std::ostream& log);

}  // namespace idem::soak
