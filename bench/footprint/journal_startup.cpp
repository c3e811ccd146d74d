// What opening a full journal costs at start-up (scripts/footprint.sh runs it).
//
//   idem_footprint_journal create PATH [FINAL OPEN]   (default 10000 final, 100 open intents)
//   idem_footprint_journal open PATH [REPEAT]         (default 7 opens)
//
// `create` writes a journal through the store's own interface, as a client would: each final
// intent `created`, `attempt_started`, `attempt_finished` (201) and `outcome_reported`
// (succeeded, with the created order as its body); each open intent the same up to an attempt
// that timed out and an `unresolved` outcome. Every intent became final now, so nothing is
// past the audit retention and the purge at open deletes nothing (it still looks).
//
// `open` (a fresh process) times sqlite_journal::open REPEAT times, destroying the journal in
// between; the first open runs with the file's pages as `create` left them in the page cache,
// the others with them cached. Then the same again after asking the kernel to drop the file's
// cached pages (posix_fadvise DONTNEED: the file is then read from the disk again, but SQLite's
// code, the file system's metadata and the disk's own cache stay warm, so this is not a cold
// start). Prints tab-separated lines:
//
//   stage   NAME  VmRSS_KiB  RssAnon_KiB  RssFile_KiB  VmHWM_KiB  heap_bytes
//   open_ms CACHE  MS MS ...            (CACHE: cached or dropped)
//   purge_ms MS                         (purge_final_before with open()'s own cutoff)
//   quick_check_ms CACHE  MS MS ...     (PRAGMA quick_check alone, which open runs first)
//   quick_check_cache_bytes BYTES       (the page cache it leaves in its connection)
//   sqlite_memory BYTES PEAK_BYTES      (sqlite3_status: SQLite's own heap, after the first open)
//   open_intents N  counts INTENTS SUCCEEDED UNRESOLVED  file_bytes BYTES
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "idem/orders.hpp"
#include "idem/sqlite_journal.hpp"
#include "process_memory.hpp"

namespace {

using idem::footprint::read_memory;
using idem::footprint::stage_line;
namespace events = idem::events;

constexpr std::size_t batch = 500;  // intents per flush while creating

// The answer the mock server gives to a create (mock_server/orders/create_order_operation.cpp).
std::string order_body(std::size_t n) {
  return R"({"amount_minor":1500,"created_at":1764583200000,"currency":"EUR",)"
         R"("customer_id":"c-1","id":"ord_)" +
         std::to_string(1'000'000'000 + n) +
         R"(","items":[{"quantity":3,"sku":"book","unit_price_minor":500}],)"
         R"("merchant_order_id":"cart-)" +
         std::to_string(n) + R"(","payments":[],"status":"CREATED"})";
}

idem::intent order(std::size_t n) {
  return idem::orders::create({.merchant_order_id = "cart-" + std::to_string(n),
                               .customer_id = "c-1",
                               .currency = "EUR",
                               .amount_minor = 1500,
                               .items = {{.sku = "book", .quantity = 3, .unit_price_minor = 500}}});
}

// Waits until everything written so far is committed.
bool flush(idem::sqlite_journal& j) {
  boost::asio::io_context io;
  std::error_code result;
  j.async_flush(io.get_executor(), [&](std::error_code ec) { result = ec; });
  io.run();
  if (result) std::cerr << "flush failed: " << result.message() << '\n';
  return !result;
}

void write_intent(idem::sqlite_journal& j, std::size_t n, bool final) {
  const auto now = std::chrono::system_clock::now();
  const idem::intent what = order(n);
  const auto& key = what.key();
  j.write(events::created{.what = what, .principal = "sha256:footprint", .at = now});
  j.write(events::attempt_started{.key = key, .number = 1, .at = now});
  idem::outcome_fields result{.attempts = 1, .key = key.str()};
  if (final) {
    j.write(events::attempt_finished{.key = key,
                                     .number = 1,
                                     .at = now,
                                     .cls = idem::attempt_class::succeeded,
                                     .status = 201,
                                     .request_id = "req_" + std::to_string(n),
                                     .took = std::chrono::milliseconds{40}});
    result.kind = idem::outcome_kind::succeeded;
    result.status = 201;
    result.body = order_body(n);
  } else {
    j.write(events::attempt_finished{.key = key,
                                     .number = 1,
                                     .at = now,
                                     .cls = idem::attempt_class::unknown,
                                     .transport_error = "timed out",
                                     .took = std::chrono::milliseconds{30'000}});
    result.kind = idem::outcome_kind::unresolved;
  }
  j.write(events::outcome_reported{.key = key, .at = now, .result = idem::outcome(result)});
}

int create(const std::string& path, std::size_t finals, std::size_t opens) {
  std::error_code ignored;
  for (const char* suffix : {"", "-wal", "-shm", ".lock"})
    std::filesystem::remove(path + suffix, ignored);
  std::error_code ec;
  std::string why;
  auto j = idem::sqlite_journal::open(
      {.path = path, .durability = idem::journal_durability::normal}, ec, &why);
  if (!j) {
    std::cerr << "cannot create " << path << ": " << why << '\n';
    return 1;
  }
  // The open intents are spread through the file, as a long-lived app leaves them.
  const std::size_t total = finals + opens;
  const std::size_t every = opens == 0 ? total + 1 : std::max<std::size_t>(total / opens, 1);
  std::size_t opened = 0;
  for (std::size_t n = 0; n < total; ++n) {
    const bool open = opened < opens && (n % every == every - 1 || total - n <= opens - opened);
    opened += open ? 1 : 0;
    write_intent(*j, n, !open);
    if (n % batch == batch - 1 && !flush(*j)) return 1;
  }
  if (!flush(*j)) return 1;
  const auto counts = j->counts();
  std::cout << "created\t" << counts.intents << " intents\t" << counts.succeeded << " succeeded\t"
            << counts.unresolved << " unresolved\n";
  return 0;
}

// Asks the kernel to drop the cached pages of the journal's files.
void drop_cached(const std::string& path) {
  for (const char* suffix : {"", "-wal"}) {
    const int fd = ::open((path + suffix).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
}

double millis_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// PRAGMA quick_check on its own connection, as sqlite_journal::open runs it on every open;
// `cache_bytes` receives what it left in the connection's page cache.
double time_quick_check(const std::string& path, int& cache_bytes) {
  sqlite3* db = nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_exec(db, "PRAGMA quick_check", nullptr, nullptr, nullptr);
  }
  const double ms = millis_since(t0);
  int peak = 0;
  sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_USED, &cache_bytes, &peak, 0);
  sqlite3_close(db);
  return ms;
}

int open_repeatedly(const std::string& path, int repeat) {
  std::cout << stage_line("before open", read_memory()) << '\n';
  for (const bool dropped : {false, true}) {
    std::vector<double> ms;
    for (int i = 0; i < repeat; ++i) {
      if (dropped) drop_cached(path);
      std::error_code ec;
      std::string why;
      const auto t0 = std::chrono::steady_clock::now();
      auto j = idem::sqlite_journal::open({.path = path}, ec, &why);
      ms.push_back(millis_since(t0));
      if (!j) {
        std::cerr << "cannot open " << path << ": " << why << '\n';
        return 1;
      }
      if (!dropped && i == 0) {
        // The first open of the process: what it holds, and the most it ever held.
        std::cout << stage_line("after the first open", read_memory()) << '\n';
        sqlite3_int64 used = 0;
        sqlite3_int64 peak = 0;
        sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &used, &peak, 0);
        std::cout << "sqlite_memory\t" << used << '\t' << peak << '\n';
        const auto counts = j->counts();
        std::cout << "open_intents\t" << j->open_intents().size() << "\tcounts\t" << counts.intents
                  << '\t' << counts.succeeded << '\t' << counts.unresolved << "\tfile_bytes\t"
                  << std::filesystem::file_size(path) << '\n';
        const auto p0 = std::chrono::steady_clock::now();
        j->purge_final_before(std::chrono::system_clock::now() - std::chrono::hours{24 * 30});
        std::cout << "purge_ms\t" << millis_since(p0) << '\n';
      }
    }
    std::cout << "open_ms\t" << (dropped ? "dropped" : "cached");
    for (double m : ms)
      std::cout << '\t' << m;
    std::cout << '\n';
  }
  int cache_bytes = 0;
  for (const bool dropped : {false, true}) {
    std::cout << "quick_check_ms\t" << (dropped ? "dropped" : "cached");
    for (int i = 0; i < repeat; ++i) {
      if (dropped) drop_cached(path);
      std::cout << '\t' << time_quick_check(path, cache_bytes);
    }
    std::cout << '\n';
  }
  std::cout << "quick_check_cache_bytes\t" << cache_bytes << '\n';
  std::cout << stage_line("after every open", read_memory()) << '\n';
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc >= 3 ? argv[1] : "";
  if (mode == "create" && (argc == 3 || argc == 5)) {
    const std::size_t finals = argc == 5 ? std::strtoull(argv[3], nullptr, 10) : 10'000;
    const std::size_t opens = argc == 5 ? std::strtoull(argv[4], nullptr, 10) : 100;
    return create(argv[2], finals, opens);
  }
  if (mode == "open" && (argc == 3 || argc == 4)) {
    const int repeat = argc == 4 ? std::atoi(argv[3]) : 7;
    return open_repeatedly(argv[2], std::max(repeat, 1));
  }
  std::cerr << "usage: idem_footprint_journal create PATH [FINAL OPEN]\n"
               "       idem_footprint_journal open PATH [REPEAT]\n";
  return 2;
}
