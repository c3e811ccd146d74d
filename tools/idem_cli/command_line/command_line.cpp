// idem-cli's command line, read by the programs' shared reader (common/command_line.hpp, CLI11)
// against help_text's table; what the values mean is the readers' (command_flags.cpp).
#include "idem_cli/command_line/command_line.hpp"

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common/command_line.hpp"
#include "idem_cli/command_line/command_flags.hpp"
#include "idem_cli/command_line/help_text.hpp"

namespace idem::cli {

command parse_command_line(const std::vector<std::string>& args) {
  const common::program_spec spec = program();
  auto read = common::parse_flags(spec, args);
  if (auto* help = std::get_if<common::help_request>(&read)) return help_request{help->text};
  if (auto* error = std::get_if<common::usage_error>(&read)) {
    return usage_error{std::move(error->message), std::move(error->hint)};
  }
  const auto& chosen = std::get<common::parsed_flags>(read);
  command result = read_command(chosen.command, chosen.values);
  if (auto* error = std::get_if<usage_error>(&result)) {
    error->usage = common::usage_hint(spec, chosen.command);
  }
  return result;
}

std::string usage_text() {
  return std::get<help_request>(parse_command_line({"--help"})).text;
}

}  // namespace idem::cli
