#include "tests/support/servers/running_server.hpp"

#include <boost/asio/post.hpp>
#include <chrono>
#include <future>
#include <stdexcept>

#include "mock_server/server.hpp"

namespace idem::kit {

mock::server_options test_server_options() {
  mock::server_options o;
  o.host = "127.0.0.1";
  o.port = 0;
  o.db_path = ":memory:";
  o.admin_token = admin_token;
  // The completer runs only when a test asks (POST /_mock/complete): on a timer it would race
  // with the retries that tests send to take an expired lease over themselves.
  o.completer_interval = std::chrono::hours(24);
  return o;
}

running_server::running_server(mock::server_options options)
    : server_(std::make_unique<mock::server>(io_, std::move(options))) {
  server_->start();
  port_ = server_->local_endpoint().port();
  thread_ = std::thread([this] { io_.run(); });
}

running_server::~running_server() {
  boost::asio::post(io_, [this] { server_->shutdown([this] { io_.stop(); }); });
  thread_.join();
  server_.reset();
}

server_process::server_process(std::vector<std::string> args, std::string stderr_path,
                               unsigned open_files) {
  common::child_spec spec{.program = IDEM_MOCK_SERVER_BINARY,
                          .args = std::move(args),
                          .stdout_to = common::child_output::pipe()};
  if (!stderr_path.empty()) spec.stderr_to = common::child_output::append_to(stderr_path);
  if (open_files > 0) spec.open_files = open_files;
  child_ = common::child_process{spec};
  const auto line = child_.read_line(std::chrono::seconds(30));
  if (!line) {
    throw std::runtime_error(child_.stdout_ended()
                                 ? "mock server exited before printing its address"
                                 : "mock server did not print its address");
  }
  const auto colon = line->rfind(':');
  if (!line->starts_with("listening on http://") || colon == std::string::npos) {
    throw std::runtime_error("unexpected first line: " + *line);
  }
  port_ = static_cast<std::uint16_t>(std::stoi(line->substr(colon + 1)));
}

int server_process::stop(int signo) {
  if (child_.pid() <= 0) return 0;
  return child_.stop(signo, std::chrono::minutes(1)).wait_status;
}

std::string server_process::rest_of_stdout() {
  if (child_.pid() > 0) return {};  // still running: it has not said all yet
  // Ended: its pipe is at its end, unless a child of its own holds it open.
  child_.read_to_end(std::chrono::seconds(10));
  return child_.take_stdout();
}

}  // namespace idem::kit
