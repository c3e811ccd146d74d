// idem-cli's command line, read by CLI11: the command, its flags, --help and --version, and the
// help's layout. The only file that includes CLI11 (a large header-only library). Which flags
// exist and what the help says of them is help_text.cpp's table; what the values mean, the
// readers' (command_flags.cpp). Unknown, repeated and missing flags are worded here, from what
// CLI11 collected, in the words idem-cli has always used, each naming its flag.
#include "idem_cli/command_line/command_line.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstddef>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "idem/version.hpp"
#include "idem_cli/command_line/command_flags.hpp"
#include "idem_cli/command_line/flag_reader.hpp"
#include "idem_cli/command_line/help_text.hpp"

namespace idem::cli {
namespace {

std::string joined(std::span<const std::string_view> paragraphs) {
  std::string out;
  for (std::string_view p : paragraphs) {
    if (!out.empty()) out += "\n\n";
    out += p;
  }
  return out;
}

// CLI11's layout, with our synopsis and description where it prints "Usage: NAME [OPTIONS]":
// its own description slot holds each command's one-line summary, which the program's help lists.
class help_layout final : public CLI::Formatter {
 public:
  std::string make_description(const CLI::App* /*app*/) const override { return {}; }
  std::string make_usage(const CLI::App* app, std::string /*name*/) const override {
    const command_help* command = find_command(app->get_name());
    return std::string(command != nullptr ? command->usage : program_usage()) + "\n";
  }
};

// `flag` declared to CLI11, keeping every value given: how many a flag may have is checked by
// collect(), in our words.
void declare(CLI::App& app, const flag_help& flag, const std::string& group) {
  const std::string name = "--" + std::string(flag.name);
  CLI::Option* option = flag.value.empty() ? app.add_flag(name) : app.add_option(name);
  option->description(std::string(flag.text))->group(group);
  if (!flag.value.empty()) {
    option->take_all()->type_name(std::string(flag.value) + (flag.required ? " REQUIRED" : ""));
  }
}

// The program, its commands and their flags, from help_text's table.
void describe(CLI::App& app) {
  auto layout = std::make_shared<help_layout>();
  layout->column_width(28);
  app.formatter(layout);  // before the commands, which take their parent's
  app.footer(joined(program_footer()));
  app.set_version_flag("--version", std::string("idem-cli ") + IDEM_VERSION_STRING);
  app.allow_extras();  // worded by parse_command_line
  app.require_subcommand(0, 1);
  for (const command_help& command : commands()) {
    CLI::App* sub = app.add_subcommand(std::string(command.name), std::string(command.summary));
    sub->allow_extras();  // worded by collect()
    sub->group("Commands");
    sub->footer(joined(command.footer));
    const std::vector<flag_help> flags = flags_of(command);
    for (std::size_t n = 0; n < flags.size(); ++n) {
      declare(*sub, flags[n], n < command.own_flags.size() ? "Options" : "Common options");
    }
  }
}

// An argument CLI11 could not place.
std::string stray(const std::string& arg) {
  if (arg.starts_with('-')) return "unknown flag " + arg.substr(0, arg.find('='));
  return "unexpected argument '" + arg + "'";
}

// The values CLI11 collected for `command`'s flags, or what is wrong with them.
std::string collect(const CLI::App& sub, const command_help& command, flag_values& out) {
  if (const auto extra = sub.remaining(); !extra.empty()) return stray(extra.front());
  std::set<std::string> required;  // checked in name order: "missing --token" before "--url"
  for (const flag_help& flag : flags_of(command)) {
    const std::string name(flag.name);
    const CLI::Option* option = sub.get_option("--" + name);
    if (option->count() > 1 && !flag.repeatable) return "--" + name + " given twice";
    for (const std::string& value : option->results()) {
      // CLI11 reads a switch given alone as "true", and --switch=VALUE as VALUE.
      if (flag.value.empty() && value != "true") return "--" + name + " takes no value";
      out.add(name, flag.value.empty() ? std::string() : value);
    }
    if (flag.required) required.insert(name);
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
                                                 const command_help* command) {
  const std::vector<flag_help> flags =
      command != nullptr ? flags_of(*command) : std::vector<flag_help>{};
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    if (!arg.starts_with("--") || arg.find('=') != arg.size() - 1) {
      out.push_back(arg);
      continue;
    }
    const std::string_view name = std::string_view(arg).substr(2, arg.size() - 3);
    if (std::ranges::any_of(
            flags, [&](const flag_help& f) { return f.name == name && f.value.empty(); })) {
      out.push_back(arg);
      continue;
    }
    out.push_back("--" + std::string(name));
    out.emplace_back();
  }
  return out;
}

std::string see_help(std::string_view command) {
  return "'idem-cli " + std::string(command) + " --help' lists its flags.\n";
}

}  // namespace

command parse_command_line(const std::vector<std::string>& given) {
  if (given.empty()) return usage_error{"missing command", std::string(short_usage())};
  std::vector<std::string> args = given;
  if (args.front() == "help") {  // `help [COMMAND]`: the program's or that command's --help
    args.erase(args.begin());
    args.emplace_back("--help");
  }
  const command_help* wanted = find_command(args.front());
  args = with_empty_values_apart(args, wanted);
  const std::string last = args.back();
  CLI::App app{"", "idem-cli"};
  describe(app);
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
    return usage_error{last + " needs a value", wanted ? see_help(wanted->name) : ""};
  } catch (const CLI::ParseError& e) {
    return usage_error{e.what(), std::string(short_usage())};
  }
  if (const auto extra = app.remaining(); !extra.empty()) {
    const std::string& first = extra.front();
    return usage_error{first.starts_with('-') ? stray(first) : "unknown command '" + first + "'",
                       std::string(short_usage())};
  }
  if (app.get_subcommands().empty()) {
    return usage_error{"missing command", std::string(short_usage())};
  }
  const CLI::App& sub = *app.get_subcommands().front();
  const command_help& chosen = *find_command(sub.get_name());
  flag_values flags;
  if (auto error = collect(sub, chosen, flags); !error.empty()) {
    return usage_error{std::move(error), see_help(chosen.name)};
  }
  command result = read_command(chosen.name, flags);
  if (auto* error = std::get_if<usage_error>(&result)) error->usage = see_help(chosen.name);
  return result;
}

std::string usage_text() {
  return std::get<help_request>(parse_command_line({"--help"})).text;
}

}  // namespace idem::cli
