#pragma once
// The exactly-once invariants, checked over the whole database for GET /_mock/invariants: no
// order created twice, no order charged twice, at most one key per business id. Read-only.

#include <nlohmann/json.hpp>

#include "mock_server/storage/sqlite.hpp"

namespace idem::mock {

/// `{"ok": bool, "checks": [{"name", "ok", "violations", "examples": [text, ...]}, ...]}`, the
/// checks in the order above, named `no_order_created_twice`, `no_order_charged_twice` and
/// `one_key_per_business_id`. `examples` names at most ten offenders each (order ids and
/// merchant_order_ids; never a token or an idempotency key). Over every principal's data.
[[nodiscard]] nlohmann::json check_invariants(database& db);

}  // namespace idem::mock
