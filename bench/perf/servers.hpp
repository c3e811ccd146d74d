#pragma once
// The servers the clients are measured against: the minimal Beast server (the client's own cost
// decides) and idem-mock-server (fresh database, no faults but a delay when asked, the completer
// and reaper out of the way). A fresh server for every run, so that every run starts alike.

#include <chrono>
#include <memory>
#include <string>

#include "child_usage.hpp"

namespace perf {

enum class server_kind { minimal, mock };

[[nodiscard]] const char* to_string(server_kind k) noexcept;

/// Where the programs are, and where the server's database and the logs go.
struct server_setup {
  std::string minimal_server;  ///< idem_minimal_server
  std::string mock_server;     ///< idem-mock-server
  std::string work_dir;        ///< databases, journals, logs (the disk that is measured)
  /// What this mock server build understands (an older build may lack them).
  bool mock_has_completer_interval = true;
  bool mock_has_max_connections = true;
  /// The one CPU the minimal server runs on; -1: not pinned. The mock server is never pinned
  /// (its threads may use every CPU the client leaves idle, as they would unmeasured).
  int minimal_server_cpu = -1;
};

/// A server started for one run; stopped (and reaped) by stop() or the destructor.
class running_server {
 public:
  /// Starts `kind` answering every create after `delay` (0: at once). Throws if it does not
  /// come up.
  running_server(const server_setup& setup, server_kind kind, std::chrono::milliseconds delay);
  running_server(const running_server&) = delete;
  running_server& operator=(const running_server&) = delete;
  ~running_server();

  /// http://127.0.0.1:PORT
  [[nodiscard]] const std::string& url() const noexcept { return url_; }
  /// Stops it and says what it cost (its CPU time is the server's share of the run).
  child_usage stop();

 private:
  std::unique_ptr<idem::common::child_process> process_;
  std::string url_;
  std::string db_;
};

/// Whether the mock server's usage text names `flag` (an older build may not have it).
[[nodiscard]] bool mock_server_has_flag(const std::string& mock_server, const std::string& flag,
                                        const std::string& work_dir);

}  // namespace perf
