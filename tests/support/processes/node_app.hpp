#pragma once
// The idempotency layers of tests/interop (written by others, run by Node) as child processes:
// which ones there are, whether this machine can run them (node on PATH, the npm packages
// installed by scripts/setup.sh), and one running on a free loopback port.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/child_process.hpp"

namespace idem::kit {

/// One idempotency layer: its app folder under tests/interop and the npm packages it needs.
struct interop_backend {
  std::string name;
  std::string app_dir;
  std::vector<std::string> packages;
};

inline const interop_backend express_idempotency{
    "express_idempotency", "express_idempotency_app", {"express", "express-idempotency"}};
inline const interop_backend node_idempotency{
    "node_idempotency",
    "node_idempotency_app",
    {"express", "@node-idempotency/core", "@node-idempotency/storage-adapter-memory"}};

/// Why `b` cannot run here (node not on PATH, tests/interop/node_modules or a package of it
/// missing), or nullopt when it can. Tests skip with this message.
[[nodiscard]] std::optional<std::string> interop_prerequisite_missing(const interop_backend& b);

/// `node tests/interop/<app>/server.js --handler-ms <handler_ms>` as a child process: its port
/// is read from its first stdout line (at most 30 s), its stderr is appended to `log`. Throws
/// std::runtime_error when it does not start. The destructor sends SIGTERM and reaps it
/// (SIGKILL after 30 s).
class node_app {
 public:
  node_app(const interop_backend& b, const std::filesystem::path& log,
           const std::string& handler_ms = "20-50");
  ~node_app();
  node_app(const node_app&) = delete;
  node_app& operator=(const node_app&) = delete;

  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }

 private:
  common::child_process child_;
  std::uint16_t port_ = 0;
};

}  // namespace idem::kit
