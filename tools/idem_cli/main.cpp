// idem-cli: the SDK's command-line face (contract section 9). Parsing, the commands and the
// output live in idem_cli_lib; this file only dispatches.
#include <unistd.h>

#include <iostream>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "idem_cli/command_line.hpp"
#include "idem_cli/exit_status.hpp"
#include "idem_cli/load_command.hpp"
#include "idem_cli/submit_command.hpp"
#include "idem_cli/summary.hpp"

int main(int argc, char** argv) {
  using namespace idem::cli;
  const std::vector<std::string> args(argv + 1, argv + argc);
  const command cmd = parse_command_line(args);
  try {
    return std::visit(
        [](const auto& c) -> int {
          using T = std::decay_t<decltype(c)>;
          if constexpr (std::is_same_v<T, usage_error>) {
            std::cerr << "idem-cli: " << c.message << "\n\n" << usage_text();
            return exit_usage;
          } else if constexpr (std::is_same_v<T, help_request>) {
            std::cout << usage_text();
            return exit_all_succeeded;
          } else if constexpr (std::is_same_v<T, submit_args>) {
            return run_submit(c, std::cout);
          } else {
            const load_summary s = run_load(c, std::cerr, ::isatty(STDERR_FILENO) == 1);
            std::cout << to_json(s).dump() << '\n';
            return exit_status_for(s.counts);
          }
        },
        cmd);
  } catch (const std::exception& e) {
    // Only setup can throw (e.g. curl or OpenSSL unavailable); outcomes never do.
    std::cerr << "idem-cli: " << e.what() << '\n';
    return exit_usage;
  }
}
