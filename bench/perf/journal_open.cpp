// idem_journal_open: how long opening a journal takes (issue 47's target: at most 20 ms with
// 10,000 final and 100 open intents after a clean shutdown). It writes such a journal once in
// `--dir`, then times sqlite_journal::open over `--repetitions` opens after a clean close, and
// as many after a process that held the journal died (fork, open, _exit: no close, so the
// clean-shutdown mark stays cleared and the open runs PRAGMA quick_check). Prints one JSON
// line: {"final": N, "open": N, "clean_ms": median, "unclean_ms": median, ...}.
//
//   idem_journal_open --dir DIR [--final 10000] [--open 100] [--repetitions 9]
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "idem/orders.hpp"
#include "idem/sqlite_journal.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

struct settings {
  std::string dir;
  int final_intents = 10'000;
  int open_intents = 100;
  int repetitions = 9;
};

idem::journal_options options_for(const std::string& path) {
  return {.path = path};
}

std::shared_ptr<idem::sqlite_journal> open_or_die(const std::string& path) {
  std::error_code ec;
  std::string why;
  auto j = idem::sqlite_journal::open(options_for(path), ec, &why);
  if (!j) {
    std::cerr << "idem_journal_open: cannot open " << path << ": " << why << "\n";
    std::exit(1);
  }
  return j;
}

// `finals` intents that succeeded and `opens` whose one attempt is still unanswered, each with
// the events the client writes for them; then flushed and closed cleanly.
void fill(const std::string& path, int finals, int opens) {
  auto j = open_or_die(path);
  const auto now = std::chrono::system_clock::now();
  for (int i = 0; i < finals + opens; ++i) {
    const auto what =
        idem::orders::create({.merchant_order_id = "open-bench-" + std::to_string(i),
                              .customer_id = "c-1",
                              .currency = "EUR",
                              .amount_minor = 1500,
                              .items = {{.sku = "book", .quantity = 3, .unit_price_minor = 500}}});
    j->write(idem::events::created{.what = what, .principal = "sha256:bench", .at = now});
    j->write(idem::events::attempt_started{.key = what.key(), .number = 1, .at = now});
    if (i >= finals) continue;
    j->write(idem::events::attempt_finished{.key = what.key(),
                                            .number = 1,
                                            .at = now,
                                            .cls = idem::attempt_class::succeeded,
                                            .status = 201,
                                            .request_id = "req-" + std::to_string(i)});
    j->write(idem::events::outcome_reported{
        .key = what.key(),
        .at = now,
        .result = idem::outcome(idem::outcome_fields{
            .kind = idem::outcome_kind::succeeded, .status = 201, .body = R"({"id":"ord_1"})"})});
  }
  boost::asio::io_context io;
  std::error_code flushed;
  j->async_flush(io.get_executor(), [&](std::error_code ec) { flushed = ec; });
  io.run();
  if (flushed) {
    std::cerr << "idem_journal_open: cannot write " << path << ": " << flushed.message() << "\n";
    std::exit(1);
  }
}

double timed_open_ms(const std::string& path) {
  const auto start = clock_type::now();
  auto j = open_or_die(path);
  const std::chrono::duration<double, std::milli> took = clock_type::now() - start;
  return took.count();  // j closes cleanly here, after the clock stopped
}

// A process opens the journal and dies without closing it.
void die_holding(const std::string& path) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::error_code ec;
    auto j = idem::sqlite_journal::open(options_for(path), ec);
    ::_exit(j ? 0 : 1);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    std::cerr << "idem_journal_open: the process that was to die holding " << path
              << " could not open it\n";
    std::exit(1);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty()           ? 0
         : v.size() % 2 == 1 ? v[v.size() / 2]
                             : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  settings s;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--dir")
      s.dir = value;
    else if (flag == "--final")
      s.final_intents = std::stoi(value);
    else if (flag == "--open")
      s.open_intents = std::stoi(value);
    else if (flag == "--repetitions")
      s.repetitions = std::max(1, std::stoi(value));
    else {
      std::cerr << "usage: idem_journal_open --dir DIR [--final N] [--open N] [--repetitions N]\n";
      return 2;
    }
  }
  if (s.dir.empty()) {
    std::cerr << "usage: idem_journal_open --dir DIR [--final N] [--open N] [--repetitions N]\n";
    return 2;
  }
  const std::string path = s.dir + "/open-bench.journal";
  for (const char* suffix : {"", "-wal", "-shm", ".lock"})
    std::filesystem::remove(path + suffix);
  fill(path, s.final_intents, s.open_intents);
  std::vector<double> clean, unclean;
  timed_open_ms(path);  // the page cache warmed, as an app's second start finds it
  for (int i = 0; i < s.repetitions; ++i)
    clean.push_back(timed_open_ms(path));
  for (int i = 0; i < s.repetitions; ++i) {
    die_holding(path);
    unclean.push_back(timed_open_ms(path));
  }
  const auto bytes = std::filesystem::file_size(path);
  for (const char* suffix : {"", "-wal", "-shm", ".lock"})
    std::filesystem::remove(path + suffix);
  std::cout << nlohmann::json{{"final", s.final_intents},
                              {"open", s.open_intents},
                              {"repetitions", s.repetitions},
                              {"file_bytes", bytes},
                              {"clean_ms", median(clean)},
                              {"clean_max_ms", *std::max_element(clean.begin(), clean.end())},
                              {"unclean_ms", median(unclean)}}
                   .dump()
            << std::endl;
  return 0;
}
