#include "servers.hpp"

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace perf {
namespace {

namespace fs = std::filesystem;

void remove_database(const std::string& db) {
  for (const char* suffix : {"", "-wal", "-shm", ".lock"})
    fs::remove(db + suffix);
}

// Every create held back `delay` before it executes: the mock server's delay fault, as the
// admin API's PUT /_mock/faults takes it (docs/MOCK_SERVER.md), given at start-up.
std::string delay_faults_file(const std::string& work_dir, std::chrono::milliseconds delay) {
  const std::string path = work_dir + "/delay-" + std::to_string(delay.count()) + "ms.json";
  std::ofstream{path} << R"({"seed": 1, "rules": [{"match": {"method": "POST", "route": )"
                      << R"("/v1/orders"}, "fault": "delay", "delay_ms": )" << delay.count()
                      << R"(, "probability": 1}]})" << '\n';
  return path;
}

// "listening on http://127.0.0.1:PORT" or a bare "PORT".
std::string url_from(const std::string& line) {
  const auto colon = line.rfind(':');
  const std::string port = colon == std::string::npos ? line : line.substr(colon + 1);
  if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos) {
    throw std::runtime_error("the server did not say its port: '" + line + "'");
  }
  return "http://127.0.0.1:" + port;
}

}  // namespace

const char* to_string(server_kind k) noexcept {
  return k == server_kind::minimal ? "minimal server" : "mock server";
}

running_server::running_server(const server_setup& setup, server_kind kind,
                               std::chrono::milliseconds delay) {
  std::vector<std::string> argv;
  if (kind == server_kind::minimal) {
    argv = {setup.minimal_server, "--delay-ms", std::to_string(delay.count())};
  } else {
    // A fresh database per server.
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    db_ = setup.work_dir + "/mock-" + std::to_string(stamp) + ".db";
    remove_database(db_);
    argv = {setup.mock_server, "--listen",   "127.0.0.1:0",       "--db", db_,
            "--admin-token",   "perf-admin", "--reaper-interval", "1h"};
    if (setup.mock_has_completer_interval) {
      argv.insert(argv.end(), {"--completer-interval", "1h"});
    }
    if (setup.mock_has_max_connections) argv.insert(argv.end(), {"--max-connections", "16000"});
    if (delay.count() > 0)
      argv.insert(argv.end(), {"--faults", delay_faults_file(setup.work_dir, delay)});
  }
  process_ = std::make_unique<idem::common::child_process>(
      harness_child(argv, setup.work_dir + "/servers.log",
                    kind == server_kind::minimal ? setup.minimal_server_cpu : -1));
  const auto line = process_->read_line(std::chrono::seconds{30});
  if (!line) {
    throw std::runtime_error(process_->stdout_ended() ? "the child ended without a line"
                                                      : "no first line from the child");
  }
  url_ = url_from(*line);
}

running_server::~running_server() {
  process_.reset();
  if (!db_.empty()) remove_database(db_);
}

child_usage running_server::stop() {
  const auto end = process_->stop(SIGTERM, std::chrono::seconds{10});
  child_usage u = usage_of(end, process_->take_stdout());
  if (!db_.empty()) remove_database(db_);
  return u;
}

bool mock_server_has_flag(const std::string& mock_server, const std::string& flag,
                          const std::string& work_dir) {
  const std::string err = work_dir + "/mock-help.txt";
  fs::remove(err);
  const child_usage u = run_to_end({mock_server, "--help"}, err);
  std::ostringstream text;
  text << u.out << std::ifstream{err}.rdbuf();
  return text.str().find(flag) != std::string::npos;
}

}  // namespace perf
