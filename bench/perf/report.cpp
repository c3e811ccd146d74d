#include "report.hpp"

#include <cstdio>

#include "report_text.hpp"
#include "targets.hpp"

namespace perf {
namespace {

std::string num(double v, int decimals = 0) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string mib(double kib) {
  return num(kib / 1024, 1);
}

std::string ratio_text(std::optional<double> r) {
  return r ? num(*r, 2) + "×" : "n/a";
}

// A dagger on figures from runs in which not every request succeeded.
std::string flagged(const std::string& v, const run_stats& s) {
  return s.all_ok ? v : v + " †";
}

void targets_table(std::ostream& out, const report_input& in) {
  const auto checks =
      check_targets(in.measured, in.now, in.before ? &*in.before : nullptr, in.sqlite);
  out << "| target (issues 9, 47) | limit | measured | runs | " << (in.before ? "before | " : "")
      << "verdict |\n|---|---|---|---|" << (in.before ? "---|" : "") << "---|\n";
  for (const auto& t : checks) {
    out << "| " << t.name << " | " << t.limit_text << " | " << format_value(t.measured, t.unit)
        << " | " << format_range(t.runs, t.unit) << " | ";
    if (in.before) out << format_value(t.before, t.unit) << " | ";
    out << "**" << verdict(t) << "** |\n";
  }
  out << "\n**measured** is what the verdict reads. For the ratios of the two clients it is the "
         "median of the repetitions' paired ratios (each repetition's idem run against raw "
         "libcurl's run next to it): a host that changes speed between repetitions moves both "
         "runs of a pair alike, where a ratio of the two clients' medians (as in the tables "
         "below) depends on how many of each client's runs fell at each speed. **runs** is the "
         "lowest and the highest of those paired ratios: where they straddle the limit, the "
         "verdict is this run's draw rather than a margin the next run will keep.\n";
}

void throughput_table(std::ostream& out, const report_input& in, server_kind server) {
  out << "\n### " << to_string(server) << "\n\n"
      << "| in flight | delay | requests | idem req/s | raw req/s | throughput ratio | idem CPU "
         "µs/req | raw CPU µs/req | CPU ratio | server CPU µs/req (idem / raw runs) |";
  if (in.before) out << " before: idem req/s | before: throughput ratio | before: CPU ratio |";
  out << "\n|---|---|---|---|---|---|---|---|---|---|" << (in.before ? "---|---|---|" : "") << "\n";
  for (const auto& p : in.now.points) {
    if (p.at.server != server) continue;
    out << "| " << p.at.concurrency << " | " << p.at.delay.count() << " ms | " << p.at.requests
        << " | " << flagged(num(p.idem.per_s), p.idem) << " | " << flagged(num(p.raw.per_s), p.raw)
        << " | **" << ratio_text(ratio(p.idem.per_s, p.raw.per_s)) << "** | "
        << num(p.idem.cpu_us, 1) << " | " << num(p.raw.cpu_us, 1) << " | **"
        << ratio_text(ratio(p.idem.cpu_us, p.raw.cpu_us)) << "** | " << num(p.idem.server_cpu_us, 1)
        << " / " << num(p.raw.server_cpu_us, 1) << " |";
    if (in.before) {
      const point_result* b = find_point(*in.before, server, p.at.concurrency);
      if (b == nullptr) {
        out << " n/a | n/a | n/a |";
      } else {
        out << " " << flagged(num(b->idem.per_s), b->idem) << " | "
            << ratio_text(ratio(b->idem.per_s, b->raw.per_s)) << " | "
            << ratio_text(ratio(b->idem.cpu_us, b->raw.cpu_us)) << " |";
      }
    }
    out << "\n";
  }
}

void memory_table(std::ostream& out, const variant_results& v, const std::string& title) {
  out << "\n"
      << title << "\n\n"
      << "| server | in flight | requests | idem peak RSS MiB | raw peak RSS MiB | idem B per "
         "in-flight | raw B per in-flight | idem's extra B per in-flight |\n"
      << "|---|---|---|---|---|---|---|---|\n";
  for (const auto& b : v.memory_baselines) {
    out << "| minimal server (baseline) | 1 | " << b.at.requests << " | " << mib(b.idem.rss_kib)
        << " | " << mib(b.raw.rss_kib) << " | | | |\n";
  }
  for (const auto& p : v.points) {
    const auto m = memory_at(v, p);
    if (!m) continue;
    out << "| " << to_string(p.at.server) << " | " << p.at.concurrency << " | " << p.at.requests
        << " | " << mib(p.idem.rss_kib) << " | " << mib(p.raw.rss_kib) << " | "
        << num(m->idem_bytes) << " | " << num(m->raw_bytes) << " | **" << num(m->extra())
        << "** |\n";
  }
}

void overshoot_section(std::ostream& out, const report_input& in) {
  const plan& p = in.measured;
  out << "\n## Deadline overshoot under load\n\n"
      << "`idem-cli load --deadline " << p.overshoot_deadline.count() << "ms --concurrency "
      << p.overshoot_concurrency << "` against the minimal server delaying every answer by "
      << p.overshoot_delay.count()
      << " ms: every intent runs out of its deadline. Per intent, its end minus (its submission "
         "+ the deadline), from idem-cli's `deadline_overshoot_ms`; medians over the runs.\n\n"
      << "| build | intents | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|\n";
  auto row = [&](const variant_results& v) {
    if (!v.overshoot.available) {
      out << "| " << v.name << " | n/a (not reported by this idem-cli) | | | |\n";
      return;
    }
    out << "| " << v.name << " | " << v.overshoot.intents << " | " << num(v.overshoot.p50_ms, 2)
        << " | " << num(v.overshoot.p99_ms, 2) << " | " << num(v.overshoot.max_ms, 2) << " |\n";
  };
  row(in.now);
  if (in.before) row(*in.before);
}

void journal_section(std::ostream& out, const report_input& in) {
  out << "\n## The client's journal\n\n"
      << "`idem-cli load` with and without `--journal` (SQLite, in the directory below), "
      << in.measured.target_concurrency << " in flight, minimal server.\n\n"
      << "| build | requests | without: req/s | with: req/s | throughput with / without | "
         "without: CPU µs/req | with: CPU µs/req | CPU with / without |\n"
      << "|---|---|---|---|---|---|---|---|\n";
  auto row = [&](const variant_results& v) {
    const auto& j = v.journal;
    out << "| " << v.name << " | " << j.with.requests << " | "
        << flagged(num(j.without.per_s), j.without) << " | " << flagged(num(j.with.per_s), j.with)
        << " | " << ratio_text(ratio(j.with.per_s, j.without.per_s)) << " | "
        << num(j.without.cpu_us, 1) << " | " << num(j.with.cpu_us, 1) << " | "
        << ratio_text(ratio(j.with.cpu_us, j.without.cpu_us)) << " |\n";
  };
  row(in.now);
  if (in.before) row(*in.before);
}

void device_cost_section(std::ostream& out, const report_input& in) {
  const auto& d = in.now.device_cost;
  if (!d.measured) return;
  const std::uint64_t n = d.rows.empty() ? 0 : d.rows.front().stats.requests;
  out << "\n## Device cost per intent\n\n"
      << "What one intent costs the device running the app: `idem-cli load` of " << n
      << " orders against the minimal server, with the default memory store and with "
         "`--journal` (durability `full`), the median of "
      << in.measured.repetitions
      << " runs each. **CPU**: the client process's user + system time; **bytes written**: what "
         "it sent to storage (`ru_oublock` × 512: the journal's WAL, its checkpoints into the "
         "database file and the file system's own journal for them); **fsync calls**: fsync, "
         "fdatasync, sync_file_range, syncfs and msync, counted with `strace -f -c` in one more "
         "run (each a flush of the disk's write cache: flash work and battery on a phone).\n\n"
      << "| store | in flight | intents/s | CPU µs/intent | fsync calls/intent | bytes "
         "written/intent |\n|---|---|---|---|---|---|\n";
  for (const auto& r : d.rows) {
    out << "| " << (r.journal ? "journal" : "memory") << " | " << r.concurrency << " | "
        << flagged(num(r.stats.per_s), r.stats) << " | " << num(r.stats.cpu_us, 1) << " | "
        << (r.syncs_per_intent ? num(*r.syncs_per_intent, 2) : std::string("n/a")) << " | "
        << num(r.stats.written_bytes) << " |\n";
  }
  const auto& o = in.now.journal_open;
  if (!o.measured) return;
  out << "\nOpening a journal of " << num(static_cast<double>(o.final_intents)) << " final and "
      << o.open_intents << " open intents (" << num(static_cast<double>(o.file_bytes) / 1e6, 1)
      << " MB; `idem_journal_open`, median of " << o.repetitions << " opens): **"
      << num(o.clean_ms, 2) << " ms** after a clean close (at most " << num(o.clean_max_ms, 2)
      << " ms), " << num(o.unclean_ms, 2)
      << " ms after a process that held it died (the open then runs `PRAGMA quick_check`).\n";
}

void journal_floor_section(std::ostream& out, const report_input& in) {
  const auto& f = in.now.journal_floor;
  if (!f.measured || f.shapes.empty()) return;
  out << "\n## The journal's floor\n\n"
      << "`idem_journal_floor`: raw SQLite " << in.sqlite.version
      << " with no idem code, on the clients' CPU and in the same directory, doing only what "
         "write-ahead needs for each intent whatever the design: its row (key, path, exact "
         "body, business ID) before its first byte, one update before the first byte (the "
         "durable point), one update with its outcome riding with a later commit. Rows are "
         "found by rowid, with no secondary index and no timeline: less than idem's journal "
         "writes. k intents' durable points to a commit (and the previous group's outcomes); "
         "durability `full` (`synchronous = FULL`: one fdatasync a commit) and no flush at all "
         "(`OFF`: SQLite's own work); medians over "
      << f.repetitions << " run" << (f.repetitions == 1 ? "" : "s") << " of each.\n\n"
      << "| intents per commit | CPU µs/intent, durability full | CPU µs/intent, no flush | the "
         "flushes' CPU µs/commit | wall µs/commit, full |\n|---|---|---|---|---|\n";
  for (const auto& s : f.shapes) {
    out << "| " << num(s.per_commit) << " | " << num(s.full_cpu_us, 1) << " | "
        << num(s.off_cpu_us, 1) << " | " << num((s.full_cpu_us - s.off_cpu_us) * s.per_commit)
        << " | " << num(s.commit_wall_us) << " |\n";
  }
  const std::uint64_t c = in.measured.target_concurrency;
  const device_cost_row* memory = in.now.device_cost.find(false, c);
  const device_cost_row* journal = in.now.device_cost.find(true, c);
  if (memory == nullptr || journal == nullptr || !journal->syncs_per_intent ||
      *journal->syncs_per_intent <= 0)
    return;
  const double k = 1.0 / *journal->syncs_per_intent;
  const journal_floor_shape* seen = f.at(k);
  const journal_floor_shape* all = f.at(static_cast<double>(c));
  out << "\nAt " << c << " in flight the memory store spent " << num(memory->stats.cpu_us, 1)
      << " µs of CPU per intent (the device-cost table), so the target of at most 2× leaves "
      << num(memory->stats.cpu_us, 1) << " µs per intent for the journal; idem's journal spent "
      << num(journal->stats.cpu_us - memory->stats.cpu_us, 1) << " µs more, its commits carrying "
      << num(k, 1) << " intents each (1 / its fsync calls per intent).";
  if (seen != nullptr)
    out << " At that many intents per commit the floor above is " << num(seen->full_cpu_us, 1)
        << " µs.";
  if (all != nullptr)
    out << " With all " << c << " in flight in every commit it would be "
        << num(all->full_cpu_us, 1) << " µs.";
  out << "\n";
}

void layers_section(std::ostream& out, const report_input& in) {
  const auto& l = in.now.layers;
  if (!l.measured) return;
  out << "\n## Where idem's cost is\n\n"
      << "The same requests, " << in.measured.target_concurrency
      << " in flight against the minimal server, " << l.idem.requests
      << " per run, the four clients alternating: raw libcurl, idem's transport alone "
         "(`idem_transport_load`: `idem::curl_transport` on one io_context, no client), an "
         "intent layer's floor (`idem_floor_load`: the transport on a strand, with only what "
         "every intent needs whatever the design: the submission's hop onto the strand, a key "
         "from OpenSSL's CSPRNG, the answer classified, an outcome delivered by a queue hop) and "
         "`idem-cli load`. The transport's share is what replacing raw libcurl with Asio and "
         "idem's transport costs; the floor's, what any intent layer on it would add; the rest "
         "is idem's own bookkeeping (the store's events, the single-flight registry, the retry "
         "budget, deadlines and attempt counts, the intent's objects, and idem-cli's own "
         "planning and counting).\n\n"
      << "| client | req/s | CPU µs/req | throughput / raw | CPU / raw |\n"
      << "|---|---|---|---|---|\n";
  auto row = [&](const char* name, const run_stats& s) {
    out << "| " << name << " | " << flagged(num(s.per_s), s) << " | " << num(s.cpu_us, 1) << " | "
        << ratio_text(ratio(s.per_s, l.raw.per_s)) << " | "
        << ratio_text(ratio(s.cpu_us, l.raw.cpu_us)) << " |\n";
  };
  row("raw libcurl", l.raw);
  row("idem's transport alone", l.transport);
  row("an intent layer's floor", l.floor);
  row("idem-cli load", l.idem);

  const auto transport = l.transport_bytes_per_inflight();
  const point_result* at = find_point(in.now, server_kind::minimal, l.memory_at.concurrency);
  const auto both = at != nullptr ? memory_at(in.now, *at) : std::nullopt;
  if (!transport || !both) return;
  out << "\nPeak RSS per request in flight at " << l.memory_at.concurrency
      << " in flight (minimal server, delay " << l.memory_at.delay.count()
      << " ms; as in \"Peak memory per request in flight\", the transport measured in its own "
         "runs):\n\n"
      << "| client | B per in-flight | over raw libcurl |\n|---|---|---|\n"
      << "| raw libcurl | " << num(both->raw_bytes) << " | |\n"
      << "| idem's transport alone | " << num(*transport) << " | "
      << num(*transport - both->raw_bytes) << " |\n"
      << "| idem-cli load | " << num(both->idem_bytes) << " | " << num(both->extra()) << " |\n";
}

void sqlite_section(std::ostream& out, const report_input& in) {
  const std::uint64_t c = in.measured.target_concurrency;
  out << "\n## The mock server against SQLite's own rate\n\n"
      << "The mock server's creates/s at " << c
      << " in flight (the faster of the two clients) against `idem_sqlite_pattern`: the same "
         "create-order writes on one connection with the server's pragmas, in the same "
         "directory.\n\n";
  if (!in.sqlite.available) {
    out << "idem_sqlite_pattern did not run.\n";
    return;
  }
  out << "| | creates/s | mock server / this |\n|---|---|---|\n";
  const double now = mock_creates_per_s(in.now, c);
  out << "| mock server (" << in.now.name << ") | " << num(now) << " | |\n";
  if (in.before) {
    out << "| mock server (" << in.before->name << ") | " << num(mock_creates_per_s(*in.before, c))
        << " | |\n";
  }
  out << "| SQLite, one transaction per create | " << num(in.sqlite.one_txn_per_s) << " | "
      << ratio_text(ratio(now, in.sqlite.one_txn_per_s)) << " |\n"
      << "| SQLite, the server's split (counter, decision, execution) | "
      << num(in.sqlite.server_split_per_s) << " | "
      << ratio_text(ratio(now, in.sqlite.server_split_per_s)) << " |\n";
}

}  // namespace

void write_report(std::ostream& out, const report_input& in) {
  out << report_preamble(in.measured.repetitions);
  out << "\n## Targets\n\n";
  targets_table(out, in);
  out << "\n## Throughput and CPU per request\n";
  throughput_table(out, in, server_kind::minimal);
  throughput_table(out, in, server_kind::mock);
  bool failures = false;
  for (const auto& p : in.now.points)
    failures = failures || !p.idem.all_ok || !p.raw.all_ok;
  if (failures) {
    out << "\n† not every request of these runs succeeded (see `clients.log` in the work "
           "directory).\n";
  }
  out << "\n## Peak memory per request in flight\n";
  memory_table(out, in.now,
               "Peak RSS at C in flight minus peak RSS at 1 in flight with as many "
               "requests, divided by C:");
  if (in.before) memory_table(out, *in.before, "Before (" + in.before->name + "):");
  overshoot_section(out, in);
  journal_section(out, in);
  device_cost_section(out, in);
  journal_floor_section(out, in);
  layers_section(out, in);
  sqlite_section(out, in);
  out << "\n## Machine\n\n| | |\n|---|---|\n";
  for (const auto& [name, value] : in.machine)
    out << "| " << name << " | " << value << " |\n";
  if (in.before) out << "| before columns | " << in.before_label << " |\n";
  out << report_changes();
  out << report_reproduce();
}

void print_targets(std::ostream& out, const report_input& in) {
  for (const auto& t :
       check_targets(in.measured, in.now, in.before ? &*in.before : nullptr, in.sqlite)) {
    out << (verdict(t) == "PASS"   ? "[PASS] "
            : verdict(t) == "MISS" ? "[MISS] "
                                   : "[ n/a] ")
        << t.name << ": " << format_value(t.measured, t.unit);
    if (t.runs) out << " (runs " << format_range(t.runs, t.unit) << ")";
    out << " (target " << t.limit_text << ")";
    if (in.before) out << ", before " << format_value(t.before, t.unit);
    out << "\n";
  }
}

}  // namespace perf
