// The flag reader of idem-cli (flag_reader.hpp) and its count parser.
#include "idem_cli/command_line/flag_reader.hpp"

#include <charconv>
#include <optional>
#include <string>
#include <vector>

namespace idem::cli {

std::string read_flags(const std::vector<std::string>& args, std::size_t first,
                       const flag_spec& spec, flag_values& out) {
  for (std::size_t n = first; n < args.size(); ++n) {
    const std::string& arg = args[n];
    if (arg.rfind("--", 0) != 0 || arg.size() == 2) return "unexpected argument '" + arg + "'";
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    if (out.has(name) && spec.repeatable.count(name) == 0) return "--" + name + " given twice";
    if (spec.switches.count(name) != 0) {
      if (value) return "--" + name + " takes no value";
      out.add(name, "");
      continue;
    }
    if (spec.valued.count(name) == 0) return "unknown flag --" + name;
    if (!value) {
      if (n + 1 >= args.size()) return "--" + name + " needs a value";
      value = args[++n];
    }
    out.add(name, *value);
  }
  for (const auto& name : spec.required) {
    if (!out.has(name)) return "missing --" + name;
    if (out.get(name).empty()) return "--" + name + " must not be empty";
  }
  return {};
}

std::optional<std::size_t> parse_count(const std::string& text, std::size_t max) {
  std::size_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end || value == 0 || value > max) return std::nullopt;
  return value;
}

}  // namespace idem::cli
