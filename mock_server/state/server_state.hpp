#pragma once
// Everything one running mock server owns besides its sockets: the database and the stores over
// it, the clock, the fault rules and the waiters. Single-threaded: only the server's event-loop
// thread touches it (the WAL checkpointer's thread uses a connection of its own).

#include <cstdint>
#include <map>
#include <string>

#include "mock_server/faults/fault_rules.hpp"
#include "mock_server/state/record_signals.hpp"
#include "mock_server/state/server_options.hpp"
#include "mock_server/storage/counters.hpp"
#include "mock_server/storage/database_lock.hpp"
#include "mock_server/storage/order_store.hpp"
#include "mock_server/storage/payment_provider.hpp"
#include "mock_server/storage/record_store.hpp"
#include "mock_server/storage/server_clock.hpp"
#include "mock_server/storage/sqlite.hpp"
#include "mock_server/storage/wal_checkpointer.hpp"

namespace idem::mock {

/// A database whose tables exist before any store reads them.
struct migrated_database : database {
  explicit migrated_database(const std::string& path);
};

struct server_state {
  /// Takes the database's lock (throws if another server holds it), opens and migrates it,
  /// expires the leases an earlier run left behind and loads the counts. Then sets the busy
  /// timeout to 0: a lock held by another process fails a statement at once (SQLITE_BUSY).
  explicit server_state(server_options opts);

  server_options options;
  database_lock lock;
  migrated_database db;
  /// Checkpoints the WAL from its own thread (declared after db: stopped before db closes).
  wal_checkpointer checkpoints{db};
  record_store records{db};
  order_store orders{db};
  payment_provider provider{db};
  counters stats{db};
  server_clock clock{db, options.clocks};
  fault_injector faults;
  record_signals signals;
  /// Distinguishes this process's lease owners from those of earlier runs on the same file.
  std::string instance_id;
  std::uint64_t executions_started = 0;
  /// Responses written, by status (for /metrics; in memory only).
  std::map<int, std::int64_t> responses_by_status;
  /// Token -> principal name: the command line's, replaced by PUT /_mock/principals.
  std::map<std::string, std::string> principals;

  /// A fresh lease-owner name for one execution.
  [[nodiscard]] std::string next_lease_owner();
  /// Lease time (server_clock::lease_now_ms) when a lease taken now would expire.
  [[nodiscard]] std::int64_t lease_expiry_from_now() const;
  /// Purges expired COMPLETED records and counts them in `records_purged`.
  std::int64_t reap();
  /// Reads the counts that /metrics and /_mock/stats show from memory (the stores' row counts,
  /// the counters) from the tables: once at start-up, and after POST /_mock/reset wiped them.
  void load_counts();
};

}  // namespace idem::mock
