// POST /v1/orders: insert the order under the business unique constraint and complete the
// idempotency record in the same transaction. Nothing in it calls out or waits, so a first
// execution runs in the very transaction that claimed the key (idempotent_post.cpp).
#include "mock_server/http/problem.hpp"
#include "mock_server/idempotency/operation.hpp"
#include "mock_server/state/server_state.hpp"
#include "mock_server/storage/ids.hpp"

namespace idem::mock {

execution_result create_order(server_state& state, execution& exec) {
  transaction txn{state.db};
  return create_order_in(state, exec, txn);
}

execution_result create_order_in(server_state& state, execution& exec, transaction& txn) {
  const auto& body = exec.body;
  order o{
      .id = random_id("ord"),
      .principal = exec.principal,
      .merchant_order_id = body.at("merchant_order_id").get<std::string>(),
      .customer_id = body.at("customer_id").get<std::string>(),
      .currency = body.at("currency").get<std::string>(),
      .amount_minor = body.at("amount_minor").get<std::int64_t>(),
      .items = body.at("items"),
      .status = "CREATED",
      .created_at_ms = state.clock.now_ms(),
      .paying_record_id = std::nullopt,
  };

  response res;
  if (state.orders.insert_order(o)) {
    res = make_json(201, to_json(o, {}));
    res.set_header("Location", "/v1/orders/" + o.id);
  } else {
    // Another key already created this merchant_order_id: a definite business conflict.
    auto existing = state.orders.find_by_merchant_order_id(exec.principal, o.merchant_order_id);
    std::string existing_id = existing ? existing->id : std::string{};
    res = make_problem(
        409, "duplicate-business-id",
        "merchant_order_id '" + o.merchant_order_id + "' was already used by another request",
        {{"existing_order_id", existing_id}});
    res.set_header("Location", "/v1/orders/" + existing_id);
    state.stats.increment_in_transaction("business_id_conflicts");
  }
  return op::finish(state, exec, txn, res);
}

}  // namespace idem::mock
