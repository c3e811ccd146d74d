#include "mock_server/state/server_state.hpp"

#include "mock_server/storage/ids.hpp"
#include "mock_server/storage/schema.hpp"

namespace idem::mock {
migrated_database::migrated_database(const std::string& path) : database(path) {
  create_schema(*this);
}

server_state::server_state(server_options opts)
    : options(std::move(opts)),
      lock(options.db_path),
      db(options.db_path),
      instance_id(random_id("srv")),
      principals(options.principals) {
  // Executors of an earlier run died with it: their leases are over (contract section 3).
  records.expire_all_leases();
  if (options.faults) faults.configure(*options.faults);
  // Counted once, here: from now on /metrics reads them from memory.
  load_counts();
  // From here on every statement runs on the event loop's one thread, where a wait for a lock
  // is a wait of every connection, /healthz included. In this process nothing else writes (the
  // WAL checkpointer never takes the write lock), so a busy database means another process
  // holds the write lock: the statement fails at once and its request is answered
  // `503 unavailable` with Retry-After (app.cpp) instead of freezing the server.
  db.set_busy_timeout(std::chrono::milliseconds{0});
}

void server_state::load_counts() {
  stats.load();
  records.load_count();
  orders.load_counts();
  provider.load_counts();
}

std::string server_state::next_lease_owner() {
  return instance_id + ":" + std::to_string(++executions_started);
}

std::int64_t server_state::lease_expiry_from_now() const {
  return clock.lease_now_ms() + options.lease.count();
}

std::int64_t server_state::reap() {
  transaction txn{db};
  auto purged = records.purge_expired(clock.now_ms());
  if (purged > 0) stats.increment_in_transaction("records_purged", purged);
  txn.commit();
  return purged;
}

}  // namespace idem::mock
