#pragma once
// The clients the harness compares, each run as its own process against a URL: `idem-cli load`
// (idem's load path), idem_raw_curl_load (libcurl's multi interface, no retry logic),
// idem_transport_load (the same requests through idem's transport alone, no client) and
// idem_floor_load (the transport with only the work every intent layer needs: a minted key, the
// answer's classification, an outcome delivered by a queue hop).

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace perf {

enum class client_kind { idem, raw, transport, floor };

[[nodiscard]] const char* to_string(client_kind k) noexcept;

/// One run's request.
struct load_shape {
  std::string url{};
  std::uint64_t requests = 0;
  std::uint64_t concurrency = 1;
  /// idem: --deadline (per intent); raw, transport: the per-request timeout. Zero: 30 s.
  std::chrono::milliseconds deadline{0};
  std::string journal{};  ///< idem only: --journal FILE (removed before and after the run)
  /// idem only: run under `strace -f -c` (this path) to count the fsync-family calls; its CPU
  /// figures then include strace's, so such a run is for the count alone.
  std::string strace{};
};

/// What one run measured. Throughput and CPU are per request sent by the client's plan.
struct sample {
  std::uint64_t requests = 0;
  std::uint64_t ok = 0;             ///< idem: succeeded; raw, transport: 2xx answers
  double wall_s = 0;                ///< the client process, from spawn to exit
  double cpu_s = 0;                 ///< the client process's user + system time
  long max_rss_kib = 0;             ///< the client process's peak RSS
  std::uint64_t bytes_written = 0;  ///< what the client process sent to storage
  /// fsync, fdatasync, sync_file_range, syncfs and msync calls (a load_shape::strace run only).
  std::optional<std::uint64_t> sync_calls{};
  double server_cpu_s = 0;   ///< the server's user + system time over its life (one run)
  nlohmann::json summary{};  ///< what the client printed (idem: the load summary)
  int exit_status = 0;

  [[nodiscard]] double per_s() const {
    return wall_s > 0 ? static_cast<double>(requests) / wall_s : 0;
  }
  [[nodiscard]] double cpu_us_per_request() const {
    return requests > 0 ? cpu_s * 1e6 / static_cast<double>(requests) : 0;
  }
};

/// Where the client programs are.
struct client_setup {
  std::string idem_cli;
  std::string raw_curl_load;
  std::string transport_load;   ///< empty: not measured (a --before build has none of its own)
  std::string floor_load;       ///< empty: not measured, as transport_load
  std::string work_dir;         ///< their stderr goes to clients.log here
  int cpu = -1;                 ///< the one CPU every client runs on; -1: not pinned
  std::string strace{};         ///< strace, to count fsyncs; empty: not installed (n/a)
  std::string journal_open{};   ///< idem_journal_open; empty: not measured (a --before build)
  std::string journal_floor{};  ///< idem_journal_floor; the same
};

/// Runs `kind` with `shape` to its end. Throws std::runtime_error if it printed no JSON.
[[nodiscard]] sample run_client(const client_setup& setup, client_kind kind,
                                const load_shape& shape);

}  // namespace perf
