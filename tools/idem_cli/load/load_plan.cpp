#include "idem_cli/load/load_plan.hpp"

#include <array>
#include <charconv>
#include <limits>
#include <string_view>

#include "idem/orders.hpp"
#include "idem_cli/load/load_mix.hpp"
#include "idem_cli/lookup_choice.hpp"

namespace idem::cli {
namespace {

// A fresh prefix per run, so that merchant_order_ids never collide with an earlier run's.
std::string run_id() {
  return idempotency_key::mint().str().substr(0, 8);
}

// `prefix` and then `n` in decimal, in one allocation: the load's own planning counts in
// bench/perf's CPU per intent, where a concatenation per piece cost as much as the body.
std::string numbered(std::string_view prefix, std::size_t n) {
  std::array<char, std::numeric_limits<std::size_t>::digits10 + 1> digits{};
  const auto length = static_cast<std::size_t>(
      std::to_chars(digits.data(), digits.data() + digits.size(), n).ptr - digits.data());
  std::string out;
  out.reserve(prefix.size() + length);
  out.append(prefix).append(digits.data(), length);
  return out;
}

// Order `n` of the run whose merchant_order_ids start with `id_prefix` ("load-<run>-").
orders::order_request order_number(std::string_view id_prefix, std::size_t n) {
  const std::int64_t price = 100 + static_cast<std::int64_t>(n % 50) * 10;
  return {.merchant_order_id = numbered(id_prefix, n),
          .customer_id = numbered("load-customer-", n % 100),
          .currency = "EUR",
          .amount_minor = price * 2,
          .items = {{.sku = numbered("sku-", n % 20), .quantity = 2, .unit_price_minor = price}}};
}

// The cancel of `order`, planned before the order exists (the orders API has no preset for
// it: the payment's has).
planned_intent plan_cancel(const intent& order) {
  return planned_intent::create("POST", "/v1/orders/{id}/cancel",
                                {{"reason", "the customer changed their mind"}},
                                orders::order_cancelled_lookup({}), order);
}

// Plans the orders of one run, one at a time.
class order_planner {
 public:
  explicit order_planner(const load_args& args)
      : args_(args), id_prefix_("load-" + run_id() + "-") {}

  // Order `n`'s intents: its create (twice for a double order) into `ready`, and what waits for
  // it into `after`.
  void plan(std::size_t n, std::vector<intent>& ready, std::vector<planned_intent>& after) const {
    const auto req = order_number(id_prefix_, n);
    const intent order = create(req);
    ready.push_back(order);
    const orders::payment_request payment{.amount_minor = req.amount_minor,
                                          .currency = req.currency};
    if (!args_.mix) {
      if (args_.pay) after.push_back(orders::plan_payment(order, payment));
      return;
    }
    const order_mix m = mix_for_order(*args_.mix, args_.seed, n);
    if (m.double_order) ready.push_back(create(req));
    if (m.pay) after.push_back(orders::plan_payment(order, payment));
    if (m.double_pay) after.push_back(orders::plan_payment(order, payment));
    if (m.cancel) after.push_back(plan_cancel(order));
  }

  // How many intents plan() makes for orders 0..orders-1.
  [[nodiscard]] std::uint64_t intents() const {
    if (!args_.mix) return args_.orders * (args_.pay ? 2 : 1);
    return count_mix(*args_.mix, args_.seed, args_.orders).total();
  }

 private:
  // The orders API's body, to --path, with the chosen lookup; a key of its own.
  [[nodiscard]] intent create(const orders::order_request& req) const {
    const lookup_args& choice = args_.common.lookup;
    // The orders API's own path and lookup: the intents share one lookup.
    if (args_.path == "/v1/orders" && !choice.overrides()) return orders::create(req);
    // Elsewhere the lookup asks the same collection (--path), or the command line's lookup,
    // which finds each record by its merchant_order_id unless told how.
    return orders::create(
        req, args_.path,
        choose_lookup(choice, order_created_at(args_.path, req.merchant_order_id),
                      choice.custom.enabled() ? orders::order_payload(req) : nlohmann::json{}));
  }

  load_args args_;
  std::string id_prefix_;  // "load-<run>-"
};

}  // namespace

run_plan load_plan(const load_args& args) {
  run_plan plan;
  plan.url = args.common.url;
  const order_planner planner(args);
  plan.ready.reserve(args.orders);
  for (std::size_t n = 0; n < args.orders; ++n)
    planner.plan(n, plan.ready, plan.after);
  return plan;
}

run_plan load_plan_on_demand(const load_args& args) {
  run_plan plan;
  plan.url = args.common.url;
  order_planner planner(args);
  plan.more_intents = planner.intents();
  plan.more = [planner = std::move(planner), n = std::size_t{0}, orders = args.orders](
                  std::vector<intent>& ready, std::vector<planned_intent>& after) mutable {
    if (n == orders) return false;
    planner.plan(n++, ready, after);
    return true;
  };
  return plan;
}

}  // namespace idem::cli
