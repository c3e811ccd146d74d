#include "tests/support/processes/node_app.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace idem::kit {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::optional<fs::path> find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs{path ? path : ""};
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const auto candidate = fs::path{dir} / program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> interop_prerequisite_missing(const interop_backend& b) {
  if (!find_on_path("node")) return "interop: node is not on PATH: run scripts/setup.sh";
  const fs::path modules = fs::path{IDEM_INTEROP_DIR} / "node_modules";
  if (!fs::is_directory(modules)) {
    return "interop: tests/interop/node_modules missing: run scripts/setup.sh with npm registry "
           "access";
  }
  for (const auto& p : b.packages) {
    if (!fs::exists(modules / p / "package.json")) {
      return "interop: npm package " + p + " missing in tests/interop/node_modules: run " +
             "scripts/setup.sh with npm registry access";
    }
  }
  return std::nullopt;
}

node_app::node_app(const interop_backend& b, const fs::path& log, const std::string& handler_ms) {
  const auto script = fs::path{IDEM_INTEROP_DIR} / b.app_dir / "server.js";
  child_ = common::child_process{{.program = find_on_path("node").value().string(),
                                  .args = {script.string(), "--handler-ms", handler_ms},
                                  .stdout_to = common::child_output::pipe(),
                                  .stderr_to = common::child_output::append_to(log.string())}};
  const auto line = child_.read_line(30s);
  const auto colon = line ? line->rfind(':') : std::string::npos;
  if (!line || !line->starts_with("listening on http://") || colon == std::string::npos) {
    child_ = {};  // SIGKILL and reap
    throw std::runtime_error(
        line ? "unexpected first line: " + *line
             : "the app did not print its address (its stderr: " + log.string() + ")");
  }
  port_ = static_cast<std::uint16_t>(std::stoi(line->substr(colon + 1)));
}

node_app::~node_app() {
  if (child_.pid() > 0) child_.stop(SIGTERM, 30s);
}

}  // namespace idem::kit
