#pragma once
// idem-soak's command line: what to run, how big, with which seed and how much chaos.

#include <chrono>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "idem_cli/load/load_mix.hpp"

namespace idem::soak {

struct soak_options {
  std::string mock_server;        ///< --mock-server PATH (default: found next to idem-soak)
  std::string cli;                ///< --cli PATH (default: found next to idem-soak)
  std::uint64_t intents = 2'000;  ///< --intents: at least this many (whole orders are planned)
  std::uint64_t seed = 0;         ///< --seed (default: a random one, printed)
  unsigned client_kills = 3;      ///< --client-kills: SIGKILLs of idem-cli, each resumed
  unsigned server_kills = 2;      ///< --server-kills: SIGKILLs of the server, each restarted
  std::string work_dir;           ///< --work-dir (default: a new temporary directory)
  bool keep = false;              ///< --keep: keep the work directory when the run passes
  std::size_t concurrency = 16;   ///< --concurrency: idem-cli's intents in flight
  cli::load_mix mix{.pay = 0.8, .cancel = 0.2, .double_pay = 0.1, .double_order = 0.05};
  std::chrono::milliseconds deadline{10'000};        ///< --deadline, of each intent's run
  std::chrono::milliseconds attempt_timeout{2'000};  ///< --attempt-timeout
  std::chrono::milliseconds overrun_tolerance{500};  ///< --overrun-tolerance
  std::chrono::milliseconds fault_period{3'000};     ///< --fault-period: new rules this often
  double fault_share = 0.5;                          ///< --fault-share: about this many meet one
};

struct soak_usage_error {
  std::string message;
};
/// --help, -h or --version: what to print on stdout.
struct soak_help {
  std::string text;
};

using soak_command = std::variant<soak_options, soak_help, soak_usage_error>;

/// Parses argv without the program name (`--name value` or `--name=value`) with the programs'
/// shared reader (common/command_line.hpp). `self_dir` is where idem-soak lives: the default
/// binaries are looked up next to it and in the build tree's `../mock_server`. A seed not given
/// is drawn at random.
[[nodiscard]] soak_command parse_soak_options(const std::vector<std::string>& args,
                                              const std::string& self_dir);

/// The command that replays `o` (same seed, sizes and chaos; binaries and work dir left out).
[[nodiscard]] std::string replay_command(const soak_options& o);

/// What follows a usage error: the synopsis and where the flags are listed.
[[nodiscard]] std::string soak_short_usage();

}  // namespace idem::soak
