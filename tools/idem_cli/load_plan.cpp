#include "idem_cli/load_plan.hpp"

#include "idem/orders.hpp"
#include "idem_cli/load_mix.hpp"
#include "idem_cli/lookup_choice.hpp"

namespace idem::cli {
namespace {

// A fresh prefix per run, so that merchant_order_ids never collide with an earlier run's.
std::string run_id() {
  return idempotency_key::mint().str().substr(0, 8);
}

orders::order_request order_number(const std::string& run, std::size_t n) {
  const std::int64_t price = 100 + static_cast<std::int64_t>(n % 50) * 10;
  return {.merchant_order_id = "load-" + run + "-" + std::to_string(n),
          .customer_id = "load-customer-" + std::to_string(n % 100),
          .currency = "EUR",
          .amount_minor = price * 2,
          .items = {
              {.sku = "sku-" + std::to_string(n % 20), .quantity = 2, .unit_price_minor = price}}};
}

// The cancel of `order`, planned before the order exists (the orders API has no preset for
// it: the payment's has).
planned_intent plan_cancel(const intent& order) {
  return planned_intent::create("POST", "/v1/orders/{id}/cancel",
                                {{"reason", "the customer changed their mind"}},
                                orders::order_cancelled_lookup({}), order);
}

}  // namespace

run_plan load_plan(const load_args& args) {
  run_plan plan;
  plan.url = args.common.url;
  const std::string run = run_id();
  plan.ready.reserve(args.orders);
  // The same body (and the key just minted, never sent) to --path, with the chosen lookup.
  auto create = [&](const orders::order_request& req) {
    const intent order = orders::create(req);
    plan.ready.push_back(intent::restore(order.key(), {"POST", args.path}, order.payload(),
                                         choose_lookup(args.common.lookup, order.lookup())));
    return plan.ready.back();
  };
  for (std::size_t n = 0; n < args.orders; ++n) {
    const auto req = order_number(run, n);
    const intent order = create(req);
    const orders::payment_request payment{.amount_minor = req.amount_minor,
                                          .currency = req.currency};
    if (!args.mix) {
      if (args.pay) plan.after.push_back(orders::plan_payment(order, payment));
      continue;
    }
    const order_mix m = mix_for_order(*args.mix, args.seed, n);
    if (m.double_order) create(req);
    if (m.pay) plan.after.push_back(orders::plan_payment(order, payment));
    if (m.double_pay) plan.after.push_back(orders::plan_payment(order, payment));
    if (m.cancel) plan.after.push_back(plan_cancel(order));
  }
  return plan;
}

}  // namespace idem::cli
