#include "idem_soak/invariants.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace idem::soak {
namespace {

constexpr std::size_t max_examples = 5;

// A check that counts offending items: ok when there are none.
struct offenders {
  std::uint64_t count = 0;
  std::vector<std::string> examples;
  void add(std::string what) {
    ++count;
    if (examples.size() < max_examples) examples.push_back(std::move(what));
  }
  [[nodiscard]] check_result row(std::string name) && {
    return {.name = std::move(name),
            .value = std::to_string(count),
            .ok = count == 0,
            .examples = std::move(examples)};
  }
};

// The facts, indexed the ways the checks look them up.
struct index {
  std::map<std::string, const server_order*> order_by_id;
  std::multimap<std::string, const server_order*> orders_by_merchant_id;
  std::map<std::string, const journal_intent*> intent_by_key;
  std::multimap<std::string, const journal_intent*> creates_by_merchant_id;

  index(const journal_facts& j, const server_facts& s) {
    for (const auto& o : s.orders) {
      order_by_id[o.id] = &o;
      orders_by_merchant_id.emplace(o.merchant_order_id, &o);
    }
    for (const auto& i : j.intents) {
      intent_by_key[i.key] = &i;
      if (i.kind == intent_kind::create) creates_by_merchant_id.emplace(i.merchant_order_id, &i);
    }
  }
  [[nodiscard]] const server_order* order(const std::string& id) const {
    auto it = order_by_id.find(id);
    return it == order_by_id.end() ? nullptr : it->second;
  }
  [[nodiscard]] const server_order* order_of_cart(const std::string& merchant_order_id) const {
    auto it = orders_by_merchant_id.find(merchant_order_id);
    return it == orders_by_merchant_id.end() ? nullptr : it->second;
  }
};

std::string describe(const journal_intent& i) {
  std::string s = std::string(to_string(i.kind)) + " " + i.key;
  if (!i.merchant_order_id.empty()) s += " (cart " + i.merchant_order_id + ")";
  if (!i.order_id.empty()) s += " (order " + i.order_id + ")";
  s += ": " + std::string(to_string(i.state));
  // append(), not " " + std::to_string(): GCC 12 at -O3 warns falsely (-Wrestrict, PR 105329)
  // about a literal prepended to a temporary string.
  if (i.final_status != 0) s.append(" ").append(std::to_string(i.final_status));
  if (!i.error.empty()) s += " " + i.error;
  return s;
}

std::string describe(const server_order& o) {
  return "order " + o.id + " (cart " + o.merchant_order_id + ", " + o.status +
         "): " + std::to_string(o.net_charges) + " charge(s) not refunded of " +
         std::to_string(o.charges) + ", " + std::to_string(o.captured_payments) +
         " captured payment(s), " + std::to_string(o.refunded_payments) + " refunded";
}

check_result all_journaled(const journal_facts& j, std::uint64_t planned) {
  const auto n = static_cast<std::uint64_t>(j.intents.size());
  return {.name = "every planned intent journaled",
          .value = std::to_string(n) + " of " + std::to_string(planned),
          .ok = n == planned};
}

check_result all_resolved(const journal_facts& j) {
  offenders open;
  for (const auto& i : j.intents)
    if (i.state == intent_state::open) open.add(describe(i));
  return std::move(open).row("every intent resolved (open left)");
}

check_result created_once(const server_facts& s) {
  offenders twice;
  std::map<std::string, std::vector<const server_order*>> by_cart;
  for (const auto& o : s.orders)
    by_cart[o.merchant_order_id].push_back(&o);
  for (const auto& [cart, orders] : by_cart) {
    if (orders.size() > 1)
      twice.add("cart " + cart + ": " + std::to_string(orders.size()) + " orders");
  }
  return std::move(twice).row("no order created twice");
}

check_result no_phantom(const server_facts& s, const index& x) {
  offenders phantom;
  for (const auto& o : s.orders)
    if (x.creates_by_merchant_id.count(o.merchant_order_id) == 0) phantom.add(describe(o));
  return std::move(phantom).row("no order without an intent");
}

check_result charged_once(const server_facts& s) {
  offenders twice;
  for (const auto& o : s.orders)
    if (o.net_charges > 1 || o.captured_payments > 1) twice.add(describe(o));
  return std::move(twice).row("no order charged twice");
}

// The contract serialises the payments of one order so that at most one charge happens: a
// second charge refunded later was still taken from the customer for a while.
check_result charged_once_ever(const server_facts& s) {
  offenders twice;
  for (const auto& o : s.orders)
    if (o.charges > 1) twice.add(describe(o));
  return std::move(twice).row("no second charge, even refunded");
}

check_result charges_match(const server_facts& s) {
  // A PAID order stands on exactly one charge and one captured payment; any other order on none
  // (a cancel refunds, a payment refused by the order's state refunds what it charged).
  offenders off;
  for (const auto& o : s.orders) {
    const bool paid = o.status == "PAID";
    const bool fine = paid ? (o.net_charges == 1 && o.captured_payments == 1)
                           : (o.net_charges == 0 && o.captured_payments == 0);
    if (!fine) off.add(describe(o));
  }
  return std::move(off).row("every charge backs a paid order");
}

// A succeeded intent whose effect the server does not show was lost after all.
check_result effects_present(const journal_facts& j, const index& x) {
  offenders lost;
  for (const auto& i : j.intents) {
    if (i.state != intent_state::succeeded) continue;
    bool present = false;
    switch (i.kind) {
      case intent_kind::create: {
        const auto* o = x.order_of_cart(i.merchant_order_id);
        present = o && (i.result_id.empty() || i.result_id == o->id);
        break;
      }
      case intent_kind::pay: {
        const auto* o = x.order(i.order_id);
        present = o && o->captured_payments + o->refunded_payments > 0;
        break;
      }
      case intent_kind::cancel: {
        const auto* o = x.order(i.order_id);
        present = o && o->status == "CANCELLED";
        break;
      }
      case intent_kind::other:
        break;
    }
    if (!present) lost.add(describe(i));
  }
  return std::move(lost).row("no succeeded intent without its effect");
}

// Whether another create of the same cart succeeded (the double tap that won).
bool sibling_create_succeeded(const journal_intent& i, const index& x) {
  auto [first, last] = x.creates_by_merchant_id.equal_range(i.merchant_order_id);
  return std::any_of(first, last, [&](const auto& kv) {
    return kv.second != &i && kv.second->state == intent_state::succeeded;
  });
}

// Rejections the mix makes legitimately: the double tap of a cart that lost (409
// duplicate-business-id), a payment of an order that another payment or a cancel got to first
// (409 invalid-state-transition), a plan whose order's create lost to its double tap. Anything
// else rejected (a cancel, a client bug, another status) is a finding.
check_result rejections_explained(const journal_facts& j, const index& x) {
  offenders odd;
  for (const auto& i : j.intents) {
    bool explained = true;
    if (i.state == intent_state::rejected) {
      explained = false;
      // A create's lookup that finds its cart taken by another intent names the conflict.
      const bool conflict = i.error.empty() || i.error == "duplicate-business-id";
      if (i.final_status == 409 && conflict) {
        if (i.kind == intent_kind::create) {
          explained = x.order_of_cart(i.merchant_order_id) && sibling_create_succeeded(i, x);
        } else if (i.kind == intent_kind::pay && i.error.empty()) {
          const auto* o = x.order(i.order_id);
          explained = o && o->status != "CREATED";
        }
      }
    } else if (i.state == intent_state::abandoned) {
      auto it = i.depends_on ? x.intent_by_key.find(*i.depends_on) : x.intent_by_key.end();
      explained = it != x.intent_by_key.end() && it->second->state == intent_state::rejected;
    }
    if (!explained) odd.add(describe(i));
  }
  return std::move(odd).row("no unexplained rejection");
}

check_result server_counter(const server_stats& stats) {
  const auto n = stats.final.value("orders_with_multiple_charges", std::int64_t{-1});
  return {.name = "server stats: orders_with_multiple_charges",
          .value = (n < 0 ? std::string("missing") : std::to_string(n)) + " (peak " +
                   std::to_string(stats.peak_multiple_charges) + " while running)",
          .ok = n == 0 && stats.peak_multiple_charges == 0};
}

check_result server_stayed_up(const server_stats& stats) {
  offenders exits;
  for (const auto& how : stats.unexpected_exits)
    exits.add(how);
  return std::move(exits).row("server never ended on its own");
}

check_result deadline_kept(const journal_facts& j, const soak_expectations& e,
                           std::chrono::milliseconds& worst) {
  using std::chrono::milliseconds;
  worst = milliseconds::min();
  offenders late;
  std::uint64_t runs = 0;
  for (const auto& i : j.intents) {
    for (const auto& r : i.runs) {
      ++runs;
      const milliseconds over = r.length() - e.deadline;
      worst = std::max(worst, over);
      if (over > e.overrun_tolerance) {
        late.add(describe(i) + ": a run of " + std::to_string(r.length().count()) + " ms");
      }
    }
  }
  if (runs == 0) worst = milliseconds{0};
  check_result row = std::move(late).row("no deadline overrun beyond tolerance");
  row.value = "worst " + std::string(worst.count() > 0 ? "+" : "") + std::to_string(worst.count()) +
              " ms in " + std::to_string(runs) + " runs (max +" +
              std::to_string(e.overrun_tolerance.count()) + ")";
  return row;
}

}  // namespace

bool soak_verdict::passed() const noexcept {
  return std::all_of(checks.begin(), checks.end(), [](const check_result& c) { return c.ok; });
}

soak_verdict check_invariants(const journal_facts& journal, const server_facts& server,
                              const soak_expectations& expected, const server_stats& stats) {
  const index x(journal, server);
  soak_verdict v;
  v.checks.push_back(all_journaled(journal, expected.planned_intents));
  v.checks.push_back(all_resolved(journal));
  v.checks.push_back(created_once(server));
  v.checks.push_back(no_phantom(server, x));
  v.checks.push_back(charged_once(server));
  v.checks.push_back(charged_once_ever(server));
  v.checks.push_back(charges_match(server));
  v.checks.push_back(effects_present(journal, x));
  v.checks.push_back(rejections_explained(journal, x));
  v.checks.push_back(server_counter(stats));
  v.checks.push_back(server_stayed_up(stats));
  v.checks.push_back(deadline_kept(journal, expected, v.worst_overrun));
  return v;
}

}  // namespace idem::soak
