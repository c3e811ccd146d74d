#include "idem_soak/soak_options.hpp"

#include <array>
#include <charconv>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "common/duration.hpp"

namespace idem::soak {
namespace {

namespace fs = std::filesystem;

const std::set<std::string> valued = {
    "mock-server",  "cli",         "intents", "seed",     "client-kills",    "server-kills",
    "work-dir",     "concurrency", "mix",     "deadline", "attempt-timeout", "overrun-tolerance",
    "fault-period", "fault-share"};

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
  std::map<std::string, std::string> values;
  std::string error;

  bool duration(const char* name, std::chrono::milliseconds& out, bool zero_ok = false) {
    auto it = values.find(name);
    if (it == values.end()) return true;
    auto d = common::parse_duration(it->second);
    if (!d || (!zero_ok && d->count() == 0)) {
      error = std::string("bad --") + name + " '" + it->second + "' (e.g. 10s, 500ms)";
      return false;
    }
    out = *d;
    return true;
  }
  template <class T>
  bool count(const char* name, T& out, T min, T max) {
    auto it = values.find(name);
    if (it == values.end()) return true;
    T v{};
    if (!parse_number(it->second, v) || v < min || v > max) {
      error = std::string("bad --") + name + " '" + it->second + "' (" + std::to_string(min) +
              " to " + std::to_string(max) + ")";
      return false;
    }
    out = v;
    return true;
  }
};

}  // namespace

soak_command parse_soak_options(const std::vector<std::string>& args, const std::string& self_dir) {
  reader r;
  soak_options o;
  for (std::size_t n = 0; n < args.size(); ++n) {
    std::string arg = args[n];
    if (arg == "--help" || arg == "-h") return soak_help{};
    if (arg == "--keep") {
      o.keep = true;
      continue;
    }
    if (!arg.starts_with("--")) return soak_usage_error{"unexpected argument '" + arg + "'"};
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    if (valued.count(name) == 0) return soak_usage_error{"unknown flag --" + name};
    if (r.values.count(name) != 0) return soak_usage_error{"--" + name + " given twice"};
    if (!value) {
      if (n + 1 >= args.size()) return soak_usage_error{"--" + name + " needs a value"};
      value = args[++n];
    }
    r.values[name] = *value;
  }
  const fs::path self(self_dir);
  o.cli = r.values.count("cli") ? r.values["cli"] : first_existing({self / "idem-cli"});
  o.mock_server = r.values.count("mock-server")
                      ? r.values["mock-server"]
                      : first_existing({self / "idem-mock-server",
                                        self / ".." / "mock_server" / "idem-mock-server"});
  o.work_dir = r.values["work-dir"];
  if (r.values.count("seed")) {
    if (!parse_number(r.values["seed"], o.seed)) {
      return soak_usage_error{"bad --seed '" + r.values["seed"] + "' (0 to 2^64-1)"};
    }
  } else {
    // Not replayable by itself, hence printed with the verdict.
    std::random_device rd;
    o.seed = (static_cast<std::uint64_t>(rd()) << 32 | rd()) % 1'000'000'000;
  }
  if (r.values.count("mix")) {
    auto mix = cli::parse_load_mix(r.values["mix"]);
    if (auto* e = std::get_if<std::string>(&mix)) return soak_usage_error{"bad --mix: " + *e};
    o.mix = std::get<cli::load_mix>(mix);
  }
  if (r.values.count("fault-share")) {
    double share = -1;
    if (!parse_number(r.values["fault-share"], share) || !(share >= 0 && share <= 1)) {
      return soak_usage_error{"bad --fault-share '" + r.values["fault-share"] + "' (0 to 1)"};
    }
    o.fault_share = share;
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

const char* soak_usage() noexcept {
  return R"(usage: idem-soak [--intents 2000] [--seed S] [--client-kills 3] [--server-kills 2]
                 [--concurrency 16] [--mix pay=0.8,cancel=0.2,double-pay=0.1,double-order=0.05]
                 [--deadline 10s] [--attempt-timeout 2s] [--fault-period 3s]
                 [--fault-share 0.5] [--overrun-tolerance 500ms]
                 [--mock-server PATH] [--cli PATH] [--work-dir DIR] [--keep]

Runs N intents (orders, payments, cancels, double taps; idem-cli load --mix) through idem-cli
with a journal against idem-mock-server under a seeded fault schedule that mixes every fault
kind, while it SIGKILLs the client (resumed from its journal) and the server (restarted on the
same database and port). Then it clears the faults, resumes until every intent is final, and
checks the server's database and the client's journal: nothing created or charged twice,
nothing lost, everything resolved, no deadline overrun beyond the tolerance. Prints a verdict
table, the seed and the command that replays the schedule.

  --intents N          plan whole orders until at least N intents
  --client-kills K     SIGKILL idem-cli K times, at seeded points of the run's progress
  --server-kills K     SIGKILL idem-mock-server K times, each back after a seeded pause
  --fault-period D     a new seeded rule set this often (and at every server start)
  --fault-share F      about this share of requests meets a fault while the chaos lasts
  --work-dir DIR       the databases, journal and logs (default: a new temporary directory,
                       removed when the run passes unless --keep)

exit status: 0 every check passed; 1 some invariant was violated; 2 usage error;
             3 the harness itself failed (a program would not start, the run hung).
)";
}

}  // namespace idem::soak
