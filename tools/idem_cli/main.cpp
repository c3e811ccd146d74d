// idem-cli: the SDK's command-line face (contract section 9); all of it is run_cli (idem_cli_lib).
#include <unistd.h>

#include <iostream>

#include "idem/sqlite_journal.hpp"
#include "idem_cli/run_cli.hpp"

int main(int argc, char** argv) {
  // Nothing in idem-cli reads SQLite's memory statistics: its journal's writes skip their cost.
  idem::sqlite_journal::disable_sqlite_memory_statistics();
  return idem::cli::run_cli({argv + 1, argv + argc}, std::cout, std::cerr,
                            ::isatty(STDERR_FILENO) == 1);
}
