// The programs' command lines read by CLI11 (command_line.hpp): the flags and commands declared
// from a program's table, --help and --version, the help's layout, and what is wrong worded in
// the words idem's programs have always used.
#include "common/command_line.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace idem::common {
namespace {

const command_spec* find_command(const program_spec& program, std::string_view name) {
  for (const command_spec& c : program.commands) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// A usage's synopsis: its first line and the lines indented under it (more than a description's
// two spaces).
std::string synopsis_of(std::string_view usage) {
  std::string out;
  for (std::size_t start = 0; start < usage.size();) {
    const std::size_t end = std::min(usage.find('\n', start), usage.size());
    const std::string_view line = usage.substr(start, end - start);
    if (start != 0 && !line.starts_with("   ")) break;
    out.append(line).push_back('\n');
    start = end + 1;
  }
  return out;
}

// CLI11's layout, with the program's synopsis and description where it prints "Usage: NAME
// [OPTIONS]": its own description slot holds each command's summary, which the program's help
// lists.
class help_layout final : public CLI::Formatter {
 public:
  explicit help_layout(const program_spec& program) : program_(program) {}
  std::string make_description(const CLI::App* /*app*/) const override { return {}; }
  std::string make_usage(const CLI::App* app, std::string /*name*/) const override {
    const command_spec* command =
        app->get_parent() != nullptr ? find_command(program_, app->get_name()) : nullptr;
    return std::string(command != nullptr ? command->usage : program_.main.usage) + "\n";
  }

 private:
  const program_spec& program_;
};

// A command's flags declared to CLI11, keeping every value given: how many a flag may have is
// checked by collect(), in our words.
void declare(CLI::App& app, const command_spec& command) {
  app.allow_extras();  // worded by collect()
  app.footer(command.footer);
  for (const flag_group& group : command.flags) {
    for (const flag& f : group.flags) {
      const std::string name = "--" + std::string(f.name);
      CLI::Option* option = f.value.empty() ? app.add_flag(name) : app.add_option(name);
      option->description(std::string(f.text))->group(std::string(group.heading));
      if (!f.value.empty()) {
        const bool required = f.kind == flag_kind::required;
        option->take_all()->type_name(std::string(f.value) + (required ? " REQUIRED" : ""));
      }
    }
  }
}

void describe(CLI::App& app, const program_spec& program) {
  auto layout = std::make_shared<help_layout>(program);
  layout->column_width(28);
  app.formatter(layout);  // before the commands, which take their parent's
  app.set_version_flag("--version", std::string(program.name) + " " + std::string(program.version));
  declare(app, program.main);
  if (program.commands.empty()) return;
  app.require_subcommand(0, 1);
  for (const command_spec& command : program.commands) {
    CLI::App* sub = app.add_subcommand(std::string(command.name), std::string(command.summary));
    sub->group("Commands");
    declare(*sub, command);
  }
}

// An argument CLI11 could not place.
std::string stray(const std::string& arg) {
  if (arg.starts_with('-')) return "unknown flag " + arg.substr(0, arg.find('='));
  return "unexpected argument '" + arg + "'";
}

// The values CLI11 collected for `command`'s flags, or what is wrong with them.
std::string collect(const CLI::App& app, const command_spec& command, flag_values& out) {
  if (const auto extra = app.remaining(); !extra.empty()) return stray(extra.front());
  std::set<std::string> required;  // checked in name order: "missing --token" before "--url"
  for (const flag_group& group : command.flags) {
    for (const flag& f : group.flags) {
      const std::string name(f.name);
      const CLI::Option* option = app.get_option("--" + name);
      const bool once = f.kind == flag_kind::optional || f.kind == flag_kind::required;
      if (option->count() > 1 && once) return "--" + name + " given twice";
      std::vector<std::string> values = option->results();
      if (f.kind == flag_kind::last_wins && values.size() > 1)
        values.erase(values.begin(), values.end() - 1);
      for (const std::string& value : values) {
        // CLI11 reads a switch given alone as "true", and --switch=VALUE as VALUE.
        if (f.value.empty() && value != "true") return "--" + name + " takes no value";
        out.add(name, f.value.empty() ? std::string() : value);
      }
      if (f.kind == flag_kind::required) required.insert(name);
    }
  }
  for (const std::string& name : required) {
    if (!out.has(name)) return "missing --" + name;
    if (out.get(name).empty()) return "--" + name + " must not be empty";
  }
  return {};
}

// CLI11 2.1 reads `--name=` as `--name` and takes the next argument as its value; an empty value
// after '=' is the flag's own (`--lookup-select=`: the whole answer), so it is passed apart.
// A switch keeps its form: CLI11 reads `--switch=` as the switch.
std::vector<std::string> with_empty_values_apart(const std::vector<std::string>& args,
                                                 const command_spec* command) {
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    if (!arg.starts_with("--") || arg.find('=') != arg.size() - 1) {
      out.push_back(arg);
      continue;
    }
    const std::string_view name = std::string_view(arg).substr(2, arg.size() - 3);
    const bool is_switch = command != nullptr && std::ranges::any_of(command->flags, [&](auto& g) {
                             return std::ranges::any_of(g.flags, [&](const flag& f) {
                               return f.name == name && f.value.empty();
                             });
                           });
    out.push_back(is_switch ? arg : "--" + std::string(name));
    if (!is_switch) out.emplace_back();
  }
  return out;
}

}  // namespace

program_spec program_of(std::string_view name, std::string_view version, std::string_view usage,
                        std::vector<flag> flags, std::string footer) {
  return {name, version, {"", "", usage, {{"Options", std::move(flags)}}, std::move(footer)}};
}

std::string usage_hint(const program_spec& program, std::string_view command) {
  const std::string name(program.name);
  if (!command.empty())
    return "'" + name + " " + std::string(command) + " --help' lists its flags.\n";
  std::string synopsis = synopsis_of(program.main.usage);
  if (program.commands.empty()) return synopsis + "'" + name + " --help' lists its flags.\n";
  synopsis.pop_back();
  for (const command_spec& c : program.commands) {
    synopsis += (&c == &program.commands.front() ? "   commands: " : ", ") + std::string(c.name);
  }
  return synopsis + "\n'" + name + " --help' describes them; '" + name +
         " COMMAND --help' lists one command's flags.\n";
}

std::variant<parsed_flags, help_request, usage_error> parse_flags(
    const program_spec& program, const std::vector<std::string>& given) {
  auto bad = [&](std::string message, std::string_view command = {}) {
    return usage_error{std::move(message), usage_hint(program, command)};
  };
  const bool has_commands = !program.commands.empty();
  if (has_commands && given.empty()) return bad("missing command");
  std::vector<std::string> args = given;
  if (has_commands && args.front() == "help") {  // `help [COMMAND]`: its --help
    args.erase(args.begin());
    args.emplace_back("--help");
  }
  const command_spec* wanted =
      has_commands ? find_command(program, args.empty() ? "" : args.front()) : &program.main;
  args = with_empty_values_apart(args, wanted);
  const std::string last = args.empty() ? std::string() : args.back();
  CLI::App app{"", std::string(program.name)};
  describe(app, program);
  std::reverse(args.begin(), args.end());  // CLI11 reads the arguments from the back
  try {
    app.parse(std::move(args));
  } catch (const CLI::CallForHelp&) {
    return help_request{app.help()};
  } catch (const CLI::CallForVersion& version) {
    return help_request{std::string(version.what()) + "\n"};
  } catch (const CLI::ArgumentMismatch&) {
    // CLI11 takes the argument after a flag as its value whatever it is: only a flag that ends
    // the command line can lack one.
    return bad(last + " needs a value", wanted ? wanted->name : "");
  } catch (const CLI::ParseError& e) {
    return bad(e.what());
  }
  if (!has_commands) {
    flag_values values;
    if (auto error = collect(app, program.main, values); !error.empty()) return bad(error);
    return parsed_flags{{}, std::move(values)};
  }
  if (const auto extra = app.remaining(); !extra.empty()) {
    const std::string& first = extra.front();
    return bad(first.starts_with('-') ? stray(first) : "unknown command '" + first + "'");
  }
  if (app.get_subcommands().empty()) return bad("missing command");
  const CLI::App& sub = *app.get_subcommands().front();
  const command_spec& chosen = *find_command(program, sub.get_name());
  flag_values values;
  if (auto error = collect(sub, chosen, values); !error.empty()) return bad(error, chosen.name);
  return parsed_flags{std::string(chosen.name), std::move(values)};
}

std::optional<std::size_t> parse_count(std::string_view text, std::size_t max) {
  std::size_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end || value == 0 || value > max) return std::nullopt;
  return value;
}

}  // namespace idem::common
