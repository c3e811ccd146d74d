#include "tests/support/processes/child_process.hpp"

#include "common/child_process.hpp"

namespace idem::kit {

finished_process run_mock_server_to_exit(const std::vector<std::string>& args,
                                         std::chrono::milliseconds limit) {
  common::child_process child{{.program = IDEM_MOCK_SERVER_BINARY,
                               .args = args,
                               .stdout_to = common::child_output::pipe(),
                               .stderr_to = common::child_output::into_stdout()}};
  finished_process out;
  out.timed_out = !child.read_to_end(limit);  // the end of its output: it exited
  out.wait_status = (out.timed_out ? child.kill() : child.wait()).wait_status;
  out.output = child.take_stdout();
  return out;
}

}  // namespace idem::kit
