#include "idem_soak/mock_server_process.hpp"

#include <signal.h>

#include <stdexcept>

namespace idem::soak {

mock_server_process::mock_server_process(mock_server_settings settings)
    : settings_(std::move(settings)) {}

void mock_server_process::start(const std::string& faults_file) {
  std::vector<std::string> args{"--listen",      "127.0.0.1:" + std::to_string(port_),
                                "--db",          settings_.db_path,
                                "--admin-token", settings_.admin_token,
                                "--lease",       std::to_string(settings_.lease.count()) + "ms"};
  if (!faults_file.empty()) {
    args.push_back("--faults");
    args.push_back(faults_file);
  }
  child_ = std::make_unique<common::child_process>(
      common::child_spec{.program = settings_.binary,
                         .args = std::move(args),
                         .stdout_to = common::child_output::pipe(),
                         .stderr_to = common::child_output::append_to(settings_.log_path),
                         .die_with_parent = true});
  const auto line = child_->read_line(std::chrono::seconds(30));
  const std::string prefix = "listening on http://127.0.0.1:";
  if (!line || !line->starts_with(prefix)) {
    std::string how;
    (void)running(how);
    throw std::runtime_error("idem-mock-server did not start (" +
                             (how.empty() ? std::string("no address printed") : how) + "); see " +
                             settings_.log_path);
  }
  port_ = static_cast<std::uint16_t>(std::stoi(line->substr(prefix.size())));
}

void mock_server_process::kill() {
  child_.reset();  // SIGKILL and reap
}

void mock_server_process::stop() {
  // A server that has not ended a minute after SIGTERM is hung: SIGKILLed then.
  if (child_) child_->stop(SIGTERM, std::chrono::minutes(1));
  child_.reset();
}

bool mock_server_process::running(std::string& how) {
  if (!child_) return false;
  if (auto end = child_->poll()) {
    how = end->describe();
    return false;
  }
  return true;
}

std::string mock_server_process::url() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

}  // namespace idem::soak
