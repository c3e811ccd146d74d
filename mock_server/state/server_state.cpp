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
