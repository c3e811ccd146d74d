// SQLite's own rate for the mock server's create-order write pattern, on one connection with the
// server's pragmas (WAL, synchronous NORMAL, foreign keys), in a directory on the disk the
// server's database is on: the ceiling the server's creates/s is compared with.
//
//   idem_sqlite_pattern --dir DIR [--seconds 2]
//
// Two shapes of the same work per create (mock_server/app.cpp, idempotent_post.cpp,
// execution_runner.cpp, create_order_operation.cpp, record_store.cpp, order_store.cpp):
// - one_txn: one BEGIN IMMEDIATE ... COMMIT holding it all (what an optimal server does);
// - server_split: the server's split before one transaction took a first create (before
//   mock_server/idempotency/claim_decision.cpp): the `requests` counter on its own (autocommit),
//   the decision (business-ID key note, claim, read back) in one transaction, the owner check as a
//   read, then the execution (insert the order, complete the record) in a second transaction.
// Prints one JSON line: {"one_txn_per_s", "server_split_per_s", "creates_one_txn", ...}.
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "mock_server/storage/schema.hpp"
#include "mock_server/storage/sqlite.hpp"
#include "raw_sqlite.hpp"
#include "sqlite_pattern_statements.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

using perf::check;
using perf::exec;
using perf::statement;

struct statements {
  explicit statements(sqlite3* db)
      : count_request(db, perf::count_request_sql),
        note_key(db, perf::note_key_sql),
        claim(db, perf::claim_sql),
        find(db, perf::find_sql),
        is_owner(db, perf::is_owner_sql),
        insert_order(db, perf::insert_order_sql),
        complete(db, perf::complete_sql) {}
  statement count_request, note_key, claim, find, is_owner, insert_order, complete;
};

// The values of create number `n`, of the sizes the server writes.
void decide(statements& s, std::int64_t n, std::int64_t now) {
  const std::string principal = "p_0123456789abcdef0123456789abcdef";
  const std::string key = "0190f3c2-7a41-7c3e-9d52-" + std::to_string(100'000'000'000 + n);
  const std::string business_id = "load-1a2b3c4d-" + std::to_string(n);
  s.note_key.bind(1, principal).bind(2, business_id).bind(3, key).run();
  s.claim.bind(1, principal)
      .bind(2, std::string{"POST /v1/orders"})
      .bind(3, key)
      .bind(4, std::string(64, 'f'))
      .bind(5, "lease-" + std::to_string(n))
      .bind(6, now + 30'000)
      .bind(7, now)
      .bind(8, "req_" + std::to_string(n))
      .bind(9, std::string(260, 'r'))
      .run();
  s.find.bind(1, principal).bind(2, std::string{"POST /v1/orders"}).bind(3, key).run();
}

void execute(statements& s, std::int64_t n, std::int64_t now) {
  const std::string order_id = "ord_" + std::to_string(100'000'000'000 + n);
  s.insert_order.bind(1, order_id)
      .bind(2, std::string{"p_0123456789abcdef0123456789abcdef"})
      .bind(3, "load-1a2b3c4d-" + std::to_string(n))
      .bind(4, std::string{"load-customer-7"})
      .bind(5, std::string{"EUR"})
      .bind(6, std::int64_t{2000})
      .bind(7, std::string{R"([{"quantity":2,"sku":"sku-7","unit_price_minor":1000}])"})
      .bind(8, std::string{"CREATED"})
      .bind(9, now)
      .run();
  s.complete.bind(1, std::int64_t{201})
      .bind(2, R"([["Location","/v1/orders/)" + order_id + R"("]])")
      .bind(3, std::string(300, 'b'))
      .bind(4, now)
      .bind(5, now + 86'400'000)
      .bind(6, n + 1)
      .bind(7, "lease-" + std::to_string(n))
      .run();
}

// Runs creates for about `seconds`; returns {creates, creates per second}.
std::pair<std::int64_t, double> run(const std::filesystem::path& file, bool split, double seconds) {
  std::filesystem::remove(file);
  std::filesystem::remove(file.string() + "-wal");
  std::filesystem::remove(file.string() + "-shm");
  {
    // The server's own tables, indexes included, from its own code.
    idem::mock::database server_db(file.string());
    idem::mock::create_schema(server_db);
  }
  sqlite3* db = nullptr;
  check(sqlite3_open(file.c_str(), &db), db, "open");
  exec(db, "PRAGMA journal_mode = WAL");
  exec(db, "PRAGMA synchronous = NORMAL");
  exec(db, "PRAGMA foreign_keys = ON");
  std::int64_t n = 0;
  const auto start = clock_type::now();
  const auto until = start + std::chrono::duration<double>(seconds);
  {
    statements s{db};
    while (clock_type::now() < until) {
      for (int i = 0; i < 100; ++i, ++n) {
        const std::int64_t now = 1'764'583'200'000 + n;
        if (!split) exec(db, "BEGIN IMMEDIATE");
        s.count_request.run();
        if (split) exec(db, "BEGIN IMMEDIATE");
        decide(s, n, now);
        if (split) exec(db, "COMMIT");
        if (split) s.is_owner.bind(1, n + 1).bind(2, "lease-" + std::to_string(n)).run();
        if (split) exec(db, "BEGIN IMMEDIATE");
        execute(s, n, now);
        exec(db, "COMMIT");
      }
    }
  }
  const double elapsed = std::chrono::duration<double>(clock_type::now() - start).count();
  sqlite3_close(db);
  std::filesystem::remove(file);
  std::filesystem::remove(file.string() + "-wal");
  std::filesystem::remove(file.string() + "-shm");
  return {n, static_cast<double>(n) / elapsed};
}

}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path dir = ".";
  double seconds = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--dir") dir = argv[i + 1];
    if (flag == "--seconds") seconds = std::stod(argv[i + 1]);
  }
  try {
    const auto file = dir / "idem-sqlite-pattern.db";
    const auto [one, one_rate] = run(file, /*split=*/false, seconds);
    const auto [split, split_rate] = run(file, /*split=*/true, seconds);
    std::printf(R"({"creates_one_txn":%lld,"one_txn_per_s":%.1f,)"
                R"("creates_server_split":%lld,"server_split_per_s":%.1f,"sqlite":"%s"})"
                "\n",
                static_cast<long long>(one), one_rate, static_cast<long long>(split), split_rate,
                sqlite3_libversion());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "idem_sqlite_pattern: %s\n", e.what());
    return 1;
  }
}
