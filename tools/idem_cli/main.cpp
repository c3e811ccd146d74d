// idem-cli: the SDK's command-line face (contract section 9); all of it is run_cli (idem_cli_lib).
#include <unistd.h>

#include <iostream>

#include "idem_cli/run_cli.hpp"

int main(int argc, char** argv) {
  return idem::cli::run_cli({argv + 1, argv + argc}, std::cout, std::cerr,
                            ::isatty(STDERR_FILENO) == 1);
}
