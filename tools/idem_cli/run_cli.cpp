#include "idem_cli/run_cli.hpp"

#include <exception>
#include <ostream>
#include <type_traits>
#include <variant>

#include "idem_cli/command_line/command_line.hpp"
#include "idem_cli/conform/conform_command.hpp"
#include "idem_cli/exit_status.hpp"
#include "idem_cli/journal/journal_command.hpp"
#include "idem_cli/journal/resume_command.hpp"
#include "idem_cli/load/load_command.hpp"
#include "idem_cli/submit_command.hpp"
#include "idem_cli/summary.hpp"
#include "idem_cli/unresolved_notice.hpp"

namespace idem::cli {
namespace {

// A load's or resume's summary on `out`; on `err` why intents did not succeed (counts per
// reason) and, after Ctrl-C, the keys left unresolved.
void report(const load_summary& s, const std::string& url, const std::string& journal,
            std::ostream& out, std::ostream& err) {
  s.failures.print(err);
  if (s.duplicates_found > 0) {
    err << "idem-cli: " << s.duplicates_found
        << " intent(s) succeeded, but the lookup found more than one record of each: the backend "
           "executed them more than once\n";
  }
  if (s.interrupted) print_unresolved_notice(err, s.unresolved_keys, url, journal, s.journal_error);
  out << to_json(s).dump() << '\n';
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
            bool show_progress) {
  const command cmd = parse_command_line(args);
  try {
    return std::visit(
        [&](const auto& c) -> int {
          using T = std::decay_t<decltype(c)>;
          if constexpr (std::is_same_v<T, usage_error>) {
            err << "idem-cli: " << c.message << '\n' << c.usage;
            return exit_usage;
          } else if constexpr (std::is_same_v<T, help_request>) {
            out << c.text;
            return exit_all_succeeded;
          } else if constexpr (std::is_same_v<T, submit_args>) {
            return run_submit(c, out, err);
          } else if constexpr (std::is_same_v<T, load_args>) {
            const load_summary s = run_load(c, err, show_progress);
            report(s, c.common.url, c.journal, out, err);
            return exit_status_for(s.counts, s.intents);
          } else if constexpr (std::is_same_v<T, resume_args>) {
            bool foreign = false;
            const load_summary s = run_resume(c, err, show_progress, foreign);
            if (foreign) {
              err << "idem-cli: the journal's open intents were written with another token or "
                     "another --key-header; resume them with those\n";
              return exit_usage;
            }
            report(s, c.common.url, c.journal, out, err);
            return exit_status_for(s.counts, s.intents);
          } else if constexpr (std::is_same_v<T, conform_args>) {
            return run_conform(c, out, err);
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
