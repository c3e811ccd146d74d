// idem_journal_floor: the least CPU any SQLite journal spends per intent on this machine, for
// issue 47's journal targets (docs/PERFORMANCE.md, "The journal's floor"). No idem code runs:
// raw SQLite on one connection, in `--dir` (the disk the journal runs write to), doing only
// what write-ahead needs for each intent, whatever the design:
//   - its row (key, method, path, exact body, business ID), inserted before its first byte;
//   - one update before the first byte (an attempt may have been sent): the durable point;
//   - one update with its outcome, riding with a later commit.
// Rows are found by rowid, the table has no secondary index and no timeline: less than idem's
// journal writes. Commits carry `k` intents' durable points and the previous group's outcomes,
// for each k of --per-commit, over min(--intents, k × --commits) intents; the plan's inserts go
// 256 to a commit. Each shape runs with
// `PRAGMA synchronous = FULL` (durability `full`: one fdatasync per commit) and OFF (no flush:
// SQLite's own work), so the difference is what the flushes cost the CPU. SQLite's memory
// statistics are off, as idem-cli runs its journal (sqlite_journal::
// disable_sqlite_memory_statistics).
//
//   idem_journal_floor --dir DIR [--intents 20000] [--commits 1500] [--per-commit 1,6,16]
//                      [--repetitions 3]
//
// Prints one JSON line: {"intents": N, "shapes": [{"per_commit": k, "full_cpu_us": median
// CPU µs per intent, "off_cpu_us": ..., "commit_wall_us": median wall µs per commit with FULL},
// ...], "sqlite": version}.
#include <sqlite3.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "idem/orders.hpp"
#include "raw_sqlite.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

using perf::check;
using perf::statement;

struct intent_text {
  std::string key, path, body, business_id;
};

std::vector<intent_text> make_intents(int n) {
  std::vector<intent_text> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const auto what =
        idem::orders::create({.merchant_order_id = "floor-" + std::to_string(i),
                              .customer_id = "c-1",
                              .currency = "EUR",
                              .amount_minor = 1500,
                              .items = {{.sku = "book", .quantity = 3, .unit_price_minor = 500}}});
    out.push_back({what.key().str(), what.op().path, what.body(), what.lookup().business_id});
  }
  return out;
}

struct shape_result {
  double cpu_us_per_intent = 0;
  double commit_wall_us = 0;
};

shape_result run_shape(const std::string& path, const std::vector<intent_text>& intents, int n,
                       int k, bool full) {
  for (const char* suffix : {"", "-wal", "-shm"})
    std::filesystem::remove(path + suffix);
  sqlite3* db = nullptr;
  check(sqlite3_open(path.c_str(), &db), db, "open " + path);
  std::unique_ptr<sqlite3, decltype(&sqlite3_close)> owner(db, &sqlite3_close);
  const std::string pragmas = std::string("PRAGMA journal_mode = WAL; PRAGMA synchronous = ") +
                              (full ? "FULL" : "OFF") +
                              ";"
                              "CREATE TABLE intents (key TEXT NOT NULL, method TEXT NOT NULL, "
                              "path TEXT NOT NULL, body BLOB NOT NULL, business_id TEXT NOT NULL, "
                              "attempts INTEGER NOT NULL, state TEXT NOT NULL, status INTEGER, "
                              "answer BLOB);";
  perf::exec(db, pragmas);
  statement begin(db, "BEGIN IMMEDIATE"), commit(db, "COMMIT");
  statement insert(db,
                   "INSERT INTO intents (rowid, key, method, path, body, business_id, attempts, "
                   "state) VALUES (?1, ?2, 'POST', ?3, ?4, ?5, 0, 'open')");
  statement sent(db, "UPDATE intents SET attempts = 1 WHERE rowid = ?1");
  statement done(db,
                 "UPDATE intents SET state = 'succeeded', status = 201, answer = ?2 WHERE rowid "
                 "= ?1");
  const std::string answer = R"({"id":"ord_0123456789","status":"created"})";

  const double cpu_start = cpu_seconds();
  for (int i = 0; i < n; ++i) {  // the plan
    if (i % 256 == 0) begin.run();
    const auto& t = intents[static_cast<std::size_t>(i)];
    insert.bind(1, std::int64_t{i} + 1)
        .bind_ref(2, t.key)
        .bind_ref(3, t.path)
        .bind_ref(4, t.body)
        .bind_ref(5, t.business_id);
    insert.run();
    if (i % 256 == 255 || i + 1 == n) commit.run();
  }
  const auto run_start = clock_type::now();
  int commits = 0;
  for (int first = 0; first < n; first += k) {  // the run: durable points, outcomes riding along
    begin.run();
    for (int i = first; i < std::min(n, first + k); ++i) {
      sent.bind(1, std::int64_t{i} + 1);
      sent.run();
    }
    for (int i = std::max(0, first - k); i < first; ++i) {
      done.bind(1, std::int64_t{i} + 1).bind_ref(2, answer);
      done.run();
    }
    commit.run();
    ++commits;
  }
  begin.run();
  for (int i = std::max(0, n - k); i < n; ++i) {
    done.bind(1, std::int64_t{i} + 1).bind_ref(2, answer);
    done.run();
  }
  commit.run();
  const double cpu = cpu_seconds() - cpu_start;
  const std::chrono::duration<double, std::micro> run_wall = clock_type::now() - run_start;
  owner.reset();
  for (const char* suffix : {"", "-wal", "-shm"})
    std::filesystem::remove(path + suffix);
  return {.cpu_us_per_intent = cpu * 1e6 / n, .commit_wall_us = run_wall.count() / (commits + 1)};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty()           ? 0
         : v.size() % 2 == 1 ? v[v.size() / 2]
                             : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::vector<int> parse_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    out.push_back(std::max(1, std::stoi(item)));
  return out;
}

constexpr const char* usage =
    "usage: idem_journal_floor --dir DIR [--intents N] [--commits N] [--per-commit K,K,...]\n"
    "                          [--repetitions N]\n";

}  // namespace

int main(int argc, char** argv) try {
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);  // before SQLite starts
  std::string dir;
  int intents = 20'000;
  int repetitions = 3;
  int commits = 1500;
  std::vector<int> per_commit{1, 6, 16};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--dir")
      dir = value;
    else if (flag == "--intents")
      intents = std::max(16, std::stoi(value));
    else if (flag == "--commits")
      commits = std::max(1, std::stoi(value));
    else if (flag == "--per-commit")
      per_commit = parse_list(value);
    else if (flag == "--repetitions")
      repetitions = std::max(1, std::stoi(value));
    else {
      std::cerr << usage;
      return 2;
    }
  }
  if (dir.empty() || argc % 2 == 0) {
    std::cerr << usage;
    return 2;
  }
  const auto texts = make_intents(intents);
  const std::string path = dir + "/floor-bench.db";
  nlohmann::json shapes = nlohmann::json::array();
  for (int k : per_commit) {
    const int n = std::min(intents, k * commits);
    std::vector<double> full_cpu, off_cpu, wall;
    for (int r = 0; r < repetitions; ++r) {  // alternating, so that both see the same machine
      const auto full = run_shape(path, texts, n, k, true);
      full_cpu.push_back(full.cpu_us_per_intent);
      wall.push_back(full.commit_wall_us);
      off_cpu.push_back(run_shape(path, texts, n, k, false).cpu_us_per_intent);
    }
    shapes.push_back({{"per_commit", k},
                      {"intents", n},
                      {"full_cpu_us", median(full_cpu)},
                      {"off_cpu_us", median(off_cpu)},
                      {"commit_wall_us", median(wall)}});
  }
  std::cout << nlohmann::json{{"intents", intents},
                              {"repetitions", repetitions},
                              {"shapes", shapes},
                              {"sqlite", sqlite3_libversion()}}
                   .dump()
            << std::endl;
  return 0;
} catch (const std::exception& e) {
  std::cerr << "idem_journal_floor: " << e.what() << "\n";
  return 1;
}
