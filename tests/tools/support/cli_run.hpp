#pragma once
// Shared by idem-cli's tests that run the command in process (cli_test, cli_backend_test,
// cli_common_options_test): run_cli with captured output, the usage error a command line gets,
// and a valid order body.

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "idem_cli/command_line/command_line.hpp"
#include "idem_cli/run_cli.hpp"

namespace idem::cli_test {

/// A create-order body the mock server accepts (business ID "cli-1").
inline const char* const order_json =
    R"({"merchant_order_id":"cli-1","customer_id":"c1","currency":"EUR","amount_minor":1500,)"
    R"("items":[{"sku":"book","quantity":3,"unit_price_minor":500}]})";

/// What one in-process `idem-cli` run came to.
struct cli_run {
  int status;
  std::string out;
  std::string err;
  /// stdout parsed as JSON (discarded when it is not).
  [[nodiscard]] nlohmann::json json() const {
    return nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  }
};

/// Runs `idem-cli args...` in process, without the progress bar.
inline cli_run run(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  const int status = cli::run_cli(args, out, err, /*show_progress=*/false);
  return {status, out.str(), err.str()};
}

/// The usage error `args` gets, or "<no usage error>" when it parses.
inline std::string usage_message(const std::vector<std::string>& args) {
  auto cmd = cli::parse_command_line(args);
  auto* error = std::get_if<cli::usage_error>(&cmd);
  return error ? error->message : "<no usage error>";
}

}  // namespace idem::cli_test
