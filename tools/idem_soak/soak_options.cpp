#include "idem_soak/soak_options.hpp"

#include <array>
#include <charconv>
#include <filesystem>
#include <optional>
#include <random>

#include "common/command_line.hpp"
#include "common/duration.hpp"
#include "idem/version.hpp"

namespace idem::soak {
namespace {

namespace fs = std::filesystem;
using common::flag;

common::program_spec soak_program() {
  std::vector<flag> flags{
      {"intents", "2000", "plan whole orders until at least N intents (1 to 10000000)"},
      {"seed", "S", "the seed of the whole run (default: a random one, printed)"},
      {"client-kills", "3", "SIGKILL idem-cli K times, at seeded points of the run's progress"},
      {"server-kills", "2", "SIGKILL idem-mock-server K times, each back after a seeded pause"},
      {"concurrency", "16", "idem-cli's intents in flight (1 to 4096)"},
      {"mix", "MIX",
       "what each order gets, as idem-cli load --mix (default\n"
       "pay=0.8,cancel=0.2,double-pay=0.1,double-order=0.05)"},
      {"deadline", "10s", "each intent's deadline"},
      {"attempt-timeout", "2s", "each attempt's timeout (at most --deadline)"},
      {"fault-period", "3s", "a new seeded rule set this often (and at every server start)"},
      {"fault-share", "0.5", "about this share of requests meets a fault while the chaos lasts"},
      {"overrun-tolerance", "500ms", "how far past its deadline an intent may end"},
      {"mock-server", "PATH", "default: next to idem-soak, or ../mock_server in a build tree"},
      {"cli", "PATH", "idem-cli (default: next to idem-soak)"},
      {"work-dir", "DIR",
       "the databases, journal and logs (default: a new temporary\n"
       "directory, removed when the run passes unless --keep)"},
      {"keep", "", "keep the work directory when the run passes"},
  };
  const std::string_view usage =
      "usage: idem-soak [--intents 2000] [--seed S] [--client-kills 3] [--server-kills 2] [FLAGS]\n"
      "  Runs N intents (orders, payments, cancels, double taps; idem-cli load --mix) through\n"
      "  idem-cli with a journal against idem-mock-server under a seeded fault schedule that\n"
      "  mixes every fault kind, while it SIGKILLs the client (resumed from its journal) and the\n"
      "  server (restarted on the same database and port). Then it clears the faults, resumes\n"
      "  until every intent is final, and checks the server's database and the client's\n"
      "  journal: nothing created or charged twice, nothing lost, everything resolved, no\n"
      "  deadline overrun beyond the tolerance. Prints a verdict table, the seed and the command\n"
      "  that replays the schedule.";
  const std::string_view footer =
      "exit status: 0 every check passed; 1 some invariant was violated; 2 usage error;\n"
      "             3 the harness itself failed (a program would not start, the run hung).";
  return common::program_of("idem-soak", IDEM_VERSION_STRING, usage, std::move(flags),
                            std::string(footer));
}

template <class T>
bool parse_number(const std::string& text, T& out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return !text.empty() && ec == std::errc{} && ptr == end;
}

// The first of `candidates` that exists, else the first.
std::string first_existing(const std::vector<fs::path>& candidates) {
  for (const auto& c : candidates)
    if (fs::exists(c)) return c.string();
  return candidates.front().string();
}

struct reader {
  const common::flag_values& values;
  std::string error;

  bool duration(const char* name, std::chrono::milliseconds& out, bool zero_ok = false) {
    if (!values.has(name)) return true;
    const std::string text = values.get(name);
    auto d = common::parse_duration(text);
    if (!d || (!zero_ok && d->count() == 0)) {
      error = std::string("bad --") + name + " '" + text + "' (e.g. 10s, 500ms)";
      return false;
    }
    out = *d;
    return true;
  }
  template <class T>
  bool count(const char* name, T& out, T min, T max) {
    if (!values.has(name)) return true;
    const std::string text = values.get(name);
    T v{};
    if (!parse_number(text, v) || v < min || v > max) {
      error = std::string("bad --") + name + " '" + text + "' (" + std::to_string(min) + " to " +
              std::to_string(max) + ")";
      return false;
    }
    out = v;
    return true;
  }
};

}  // namespace

soak_command parse_soak_options(const std::vector<std::string>& args, const std::string& self_dir) {
  auto parsed = common::parse_flags(soak_program(), args);
  if (auto* help = std::get_if<common::help_request>(&parsed)) return soak_help{help->text};
  if (auto* e = std::get_if<common::usage_error>(&parsed)) return soak_usage_error{e->message};
  const common::flag_values& values = std::get<common::parsed_flags>(parsed).values;
  reader r{values, {}};
  soak_options o;
  const fs::path self(self_dir);
  o.cli = values.has("cli") ? values.get("cli") : first_existing({self / "idem-cli"});
  o.mock_server = values.has("mock-server")
                      ? values.get("mock-server")
                      : first_existing({self / "idem-mock-server",
                                        self / ".." / "mock_server" / "idem-mock-server"});
  o.work_dir = values.get("work-dir");
  o.keep = values.has("keep");
  if (values.has("seed")) {
    if (!parse_number(values.get("seed"), o.seed)) {
      return soak_usage_error{"bad --seed '" + values.get("seed") + "' (0 to 2^64-1)"};
    }
  } else {
    // Not replayable by itself, hence printed with the verdict.
    std::random_device rd;
    o.seed = (static_cast<std::uint64_t>(rd()) << 32 | rd()) % 1'000'000'000;
  }
  if (values.has("mix")) {
    auto mix = cli::parse_load_mix(values.get("mix"));
    if (auto* e = std::get_if<std::string>(&mix)) return soak_usage_error{"bad --mix: " + *e};
    o.mix = std::get<cli::load_mix>(mix);
  }
  if (values.has("fault-share")) {
    const auto share = cli::parse_share(values.get("fault-share"));
    if (!share) {
      return soak_usage_error{"bad --fault-share '" + values.get("fault-share") + "' (0 to 1)"};
    }
    o.fault_share = *share;
  }
  const bool ok = r.count<std::uint64_t>("intents", o.intents, 1, 10'000'000) &&
                  r.count<unsigned>("client-kills", o.client_kills, 0, 1000) &&
                  r.count<unsigned>("server-kills", o.server_kills, 0, 1000) &&
                  r.count<std::size_t>("concurrency", o.concurrency, 1, 4096) &&
                  r.duration("deadline", o.deadline) &&
                  r.duration("attempt-timeout", o.attempt_timeout) &&
                  r.duration("overrun-tolerance", o.overrun_tolerance, /*zero_ok=*/true) &&
                  r.duration("fault-period", o.fault_period);
  if (!ok) return soak_usage_error{r.error};
  if (o.attempt_timeout > o.deadline) {
    return soak_usage_error{"--attempt-timeout must not exceed --deadline"};
  }
  return o;
}

std::string replay_command(const soak_options& o) {
  auto ms = [](std::chrono::milliseconds d) { return std::to_string(d.count()) + "ms"; };
  std::array<char, 32> buf{};
  const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), o.fault_share);
  const std::string share(buf.data(), ec == std::errc{} ? end : buf.data());
  return "idem-soak --seed " + std::to_string(o.seed) + " --intents " + std::to_string(o.intents) +
         " --client-kills " + std::to_string(o.client_kills) + " --server-kills " +
         std::to_string(o.server_kills) + " --concurrency " + std::to_string(o.concurrency) +
         " --mix " + cli::to_string(o.mix) + " --deadline " + ms(o.deadline) +
         " --attempt-timeout " + ms(o.attempt_timeout) + " --fault-period " + ms(o.fault_period) +
         " --fault-share " + share + " --overrun-tolerance " + ms(o.overrun_tolerance);
}

std::string soak_short_usage() {
  return common::usage_hint(soak_program());
}

}  // namespace idem::soak
