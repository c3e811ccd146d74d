#include "idem_cli/run_cli.hpp"

#include <exception>
#include <ostream>
#include <type_traits>
#include <variant>

#include "idem_cli/command_line.hpp"
#include "idem_cli/exit_status.hpp"
#include "idem_cli/journal_command.hpp"
#include "idem_cli/load_command.hpp"
#include "idem_cli/resume_command.hpp"
#include "idem_cli/submit_command.hpp"
#include "idem_cli/summary.hpp"

namespace idem::cli {

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
            bool show_progress) {
  const command cmd = parse_command_line(args);
  try {
    return std::visit(
        [&](const auto& c) -> int {
          using T = std::decay_t<decltype(c)>;
          if constexpr (std::is_same_v<T, usage_error>) {
            err << "idem-cli: " << c.message << "\n\n" << usage_text();
            return exit_usage;
          } else if constexpr (std::is_same_v<T, help_request>) {
            out << usage_text();
            return exit_all_succeeded;
          } else if constexpr (std::is_same_v<T, submit_args>) {
            return run_submit(c, out);
          } else if constexpr (std::is_same_v<T, load_args>) {
            const load_summary s = run_load(c, err, show_progress);
            out << to_json(s).dump() << '\n';
            return exit_status_for(s.counts, s.intents);
          } else if constexpr (std::is_same_v<T, resume_args>) {
            bool foreign = false;
            const load_summary s = run_resume(c, err, show_progress, foreign);
            if (foreign) {
              err << "idem-cli: the journal's open intents were written with another token; "
                     "resume them with that token\n";
              return exit_usage;
            }
            out << to_json(s).dump() << '\n';
            return exit_status_for(s.counts, s.intents);
          } else {
            static_assert(std::is_same_v<T, journal_args>);
            return run_journal(c, out, err);
          }
        },
        cmd);
  } catch (const std::exception& e) {
    // Only setup can throw (curl or OpenSSL unavailable, a journal that cannot be opened or
    // written); outcomes never do.
    err << "idem-cli: " << e.what() << '\n';
    return exit_setup_failed;
  }
}

}  // namespace idem::cli
