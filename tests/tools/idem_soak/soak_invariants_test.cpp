// idem-soak's checker (tools/idem_soak/invariants.cpp) on crafted data: a mock server database
// built on the server's own schema and an idem-cli journal written through the SDK's journal,
// each read back by the soak's readers. A clean run passes; each kind of damage the soak exists
// to find (a double charge, an order created twice, a lost intent, an open intent, a deadline
// overrun, an unexplained rejection) is flagged by its check, so the checker cannot pass
// silently.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "idem/orders.hpp"
#include "idem/sqlite_journal.hpp"
#include "idem_soak/invariants.hpp"
#include "idem_soak/journal_facts.hpp"
#include "idem_soak/server_facts.hpp"
#include "mock_server/storage/schema.hpp"
#include "mock_server/storage/sqlite.hpp"
#include "tests/support/temp_dir.hpp"

namespace idem::soak {
namespace {

using namespace std::chrono_literals;

const wall_time invariants_t0 =
    wall_time{} + std::chrono::hours(24 * 365 * 55);  // some day in 2025

// A mock server database with the rows a test puts in it.
class crafted_server {
 public:
  explicit crafted_server(std::string path) : path_(std::move(path)), db_(path_) {
    mock::create_schema(db_);
  }
  const std::string& path() const { return path_; }

  // An order of `cart` in `status`, under `principal`.
  void order(const std::string& id, const std::string& cart, const std::string& status,
             const std::string& principal = "p_shop") {
    db_.exec(
        "INSERT INTO orders (id, principal, merchant_order_id, customer_id, currency,"
        " amount_minor, items, status, created_at) VALUES ('" +
        id + "', '" + principal + "', '" + cart + "', 'c', 'EUR', 200, '[]', '" + status + "', 0)");
  }
  // A provider charge of the order and, if `payment_status` is given, the payment on it.
  void charge(const std::string& order_id, bool refunded = false,
              const std::string& payment_status = "CAPTURED") {
    const std::string n = std::to_string(++charges_);
    db_.exec(
        "INSERT INTO provider_charges (provider_key, charge_id, order_id, amount_minor,"
        " currency, captured, refunded, created_at) VALUES ('pk_" +
        n + "', 'ch_" + n + "', '" + order_id + "', 200, 'EUR', 1, " + (refunded ? "1" : "0") +
        ", 0)");
    if (payment_status.empty()) return;
    db_.exec(
        "INSERT INTO payments (id, order_id, amount_minor, currency, status,"
        " provider_charge_id, created_at) VALUES ('pay_" +
        n + "', '" + order_id + "', 200, 'EUR', '" + payment_status + "', 'ch_" + n + "', 0)");
  }

 private:
  std::string path_;
  mock::database db_;
  int charges_ = 0;
};

// An idem-cli journal with the intents a test writes to it, each run from `start` to `end`.
class crafted_journal {
 public:
  explicit crafted_journal(std::string path) : path_(std::move(path)) {
    std::error_code ec;
    journal_ = sqlite_journal::open({.path = path_}, ec);
    if (!journal_) throw std::runtime_error("cannot open the test journal: " + ec.message());
  }
  const std::string& path() const { return path_; }

  // A create of `cart` that ended `kind` with `status`, answering `body`.
  std::string create(const std::string& cart, outcome_kind kind, int status,
                     const std::string& body, wall_time start = invariants_t0,
                     wall_time end = invariants_t0 + 1s) {
    return run(order_of(cart), kind, status, body, start, end);
  }
  std::string pay(const std::string& order_id, outcome_kind kind, int status) {
    return run(orders::pay(order_id, {.amount_minor = 200, .currency = "EUR"}), kind, status,
               R"({"id":"pay_x"})", invariants_t0, invariants_t0 + 1s);
  }
  std::string cancel(const std::string& order_id, outcome_kind kind, int status) {
    return run(orders::cancel(order_id), kind, status, "{}", invariants_t0, invariants_t0 + 1s);
  }
  // An intent written down, never finished.
  void open(const std::string& cart) {
    const intent i = order_of(cart);
    journal_->write(events::created{.what = i, .principal = "p", .at = invariants_t0});
    journal_->write(events::attempt_started{.key = i.key(), .number = 1, .at = invariants_t0});
  }
  // Commits everything (the journal commits what is queued when it goes).
  void close() { journal_.reset(); }

 private:
  static intent order_of(const std::string& cart) {
    return orders::create({.merchant_order_id = cart,
                           .customer_id = "c",
                           .currency = "EUR",
                           .amount_minor = 200,
                           .items = {{.sku = "s", .quantity = 2, .unit_price_minor = 100}}});
  }

  std::string run(const intent& i, outcome_kind kind, int status, const std::string& body,
                  wall_time start, wall_time end) {
    journal_->write(events::created{.what = i, .principal = "p", .at = start});
    journal_->write(events::attempt_started{.key = i.key(), .number = 1, .at = start});
    journal_->write(events::attempt_finished{
        .key = i.key(), .number = 1, .at = end, .cls = attempt_class::succeeded, .status = status});
    journal_->write(events::outcome_reported{
        .key = i.key(),
        .at = end,
        .result = outcome(outcome_fields{.kind = kind, .status = status, .body = body})});
    return i.key().str();
  }

  std::string path_;
  std::shared_ptr<sqlite_journal> journal_;
};

class SoakInvariants : public ::testing::Test {
 protected:
  // A clean little run: order A created and paid, order B created and cancelled, the double tap
  // of B's cart refused, a second payment of A refused because A was already paid.
  void clean_run() {
    server_.order("ord_a", "cart-a", "PAID");
    server_.charge("ord_a");
    server_.order("ord_b", "cart-b", "CANCELLED");
    journal_.create("cart-a", outcome_kind::succeeded, 201, R"({"id":"ord_a"})");
    journal_.pay("ord_a", outcome_kind::succeeded, 201);
    journal_.pay("ord_a", outcome_kind::rejected, 409);
    journal_.create("cart-b", outcome_kind::succeeded, 201, R"({"id":"ord_b"})");
    journal_.create("cart-b", outcome_kind::rejected, 409, R"({"existing_order_id":"ord_b"})");
    journal_.cancel("ord_b", outcome_kind::succeeded, 200);
    planned_ = 6;
  }

  soak_verdict verdict(const server_stats& stats = {
                           .final = {{"orders_with_multiple_charges", 0}}}) {
    journal_.close();
    return check_invariants(
        read_journal_facts(journal_.path(), {}), read_server_facts(server_.path()),
        {.planned_intents = planned_, .deadline = 10s, .overrun_tolerance = 500ms}, stats);
  }

  // The check called `name`.
  static const check_result& check(const soak_verdict& v, const std::string& name) {
    for (const auto& c : v.checks)
      if (c.name == name) return c;
    throw std::logic_error("no check " + name);
  }

  // The names of the checks that failed.
  static std::vector<std::string> violated(const soak_verdict& v) {
    std::vector<std::string> out;
    for (const auto& c : v.checks)
      if (!c.ok) out.push_back(c.name);
    return out;
  }

  idem::kit::temp_dir dir_;
  crafted_server server_{dir_.file("server.db")};
  crafted_journal journal_{dir_.file("client.journal")};
  std::uint64_t planned_ = 0;
};

using names = std::vector<std::string>;

TEST_F(SoakInvariants, ACleanRunPassesEveryCheck) {
  clean_run();
  const auto v = verdict();
  EXPECT_TRUE(v.passed()) << ::testing::PrintToString(violated(v));
  EXPECT_EQ(v.checks.size(), 12u);
  EXPECT_EQ(v.worst_overrun, 1s - 10s);
}

TEST_F(SoakInvariants, AnOrderChargedTwiceIsFlagged) {
  clean_run();
  server_.charge("ord_a", /*refunded=*/false, /*payment_status=*/"");  // a charge without payment
  EXPECT_EQ(
      violated(verdict({.final = {{"orders_with_multiple_charges", 1}}})),
      (names{"no order charged twice", "no second charge, even refunded",
             "every charge backs a paid order", "server stats: orders_with_multiple_charges"}));
}

TEST_F(SoakInvariants, ARefundedSecondChargeIsStillASecondCharge) {
  // Money kept: once; money taken: twice (the contract allows one charge per order).
  clean_run();
  server_.charge("ord_a", /*refunded=*/true, /*payment_status=*/"REFUNDED");
  EXPECT_EQ(violated(verdict()), names{"no second charge, even refunded"});
}

TEST_F(SoakInvariants, APaidThenCancelledOrderIsFine) {
  clean_run();
  server_.order("ord_h", "cart-h", "CANCELLED");
  server_.charge("ord_h", /*refunded=*/true, /*payment_status=*/"REFUNDED");
  journal_.create("cart-h", outcome_kind::succeeded, 201, R"({"id":"ord_h"})");
  journal_.pay("ord_h", outcome_kind::succeeded, 201);
  journal_.cancel("ord_h", outcome_kind::succeeded, 200);
  planned_ += 3;
  EXPECT_TRUE(verdict().passed());
}

TEST_F(SoakInvariants, ACancelledOrderThatKeptItsChargeIsFlagged) {
  clean_run();
  server_.charge("ord_b");
  EXPECT_EQ(violated(verdict()), names{"every charge backs a paid order"});
}

TEST_F(SoakInvariants, AnOrderCreatedTwiceIsFlagged) {
  clean_run();
  // The server's unique constraint is per principal: a second principal slips past it.
  server_.order("ord_a2", "cart-a", "CREATED", "p_other");
  EXPECT_EQ(violated(verdict()), names{"no order created twice"});
}

TEST_F(SoakInvariants, AnOrderNoIntentAskedForIsFlagged) {
  clean_run();
  server_.order("ord_z", "cart-z", "CREATED");
  EXPECT_EQ(violated(verdict()), names{"no order without an intent"});
}

TEST_F(SoakInvariants, AnIntentMissingFromTheJournalIsFlagged) {
  clean_run();
  planned_ = 7;
  EXPECT_EQ(violated(verdict()), names{"every planned intent journaled"});
}

TEST_F(SoakInvariants, ASucceededIntentTheServerDoesNotShowIsFlagged) {
  clean_run();
  journal_.create("cart-c", outcome_kind::succeeded, 201, R"({"id":"ord_c"})");
  journal_.pay("ord_b", outcome_kind::succeeded, 201);  // B has no payment at all
  planned_ += 2;
  const auto v = verdict();
  EXPECT_EQ(violated(v), names{"no succeeded intent without its effect"});
  const auto& c = check(v, "no succeeded intent without its effect");
  EXPECT_EQ(c.value, "2");
  ASSERT_EQ(c.examples.size(), 2u);
  EXPECT_NE(c.examples[0].find("cart-c"), std::string::npos) << c.examples[0];
}

TEST_F(SoakInvariants, AnOpenIntentIsFlagged) {
  clean_run();
  journal_.open("cart-d");
  ++planned_;
  EXPECT_EQ(violated(verdict()), names{"every intent resolved (open left)"});
}

TEST_F(SoakInvariants, ARejectionNothingExplainsIsFlagged) {
  clean_run();
  server_.order("ord_e", "cart-e", "CREATED");
  journal_.create("cart-e", outcome_kind::succeeded, 201, R"({"id":"ord_e"})");
  journal_.pay("ord_e", outcome_kind::rejected, 409);     // nothing else touched ord_e
  journal_.cancel("ord_a", outcome_kind::rejected, 409);  // a cancel of a paid order refunds
  planned_ += 3;
  const auto v = verdict();
  EXPECT_EQ(violated(v), names{"no unexplained rejection"});
  EXPECT_EQ(check(v, "no unexplained rejection").value, "2");
}

TEST_F(SoakInvariants, ARunPastItsDeadlineBeyondTheToleranceIsFlagged) {
  clean_run();
  server_.order("ord_f", "cart-f", "CREATED");
  server_.order("ord_g", "cart-g", "CREATED");
  journal_.create("cart-f", outcome_kind::succeeded, 201, R"({"id":"ord_f"})", invariants_t0,
                  invariants_t0 + 10s + 400ms);  // within the tolerance
  journal_.create("cart-g", outcome_kind::succeeded, 201, R"({"id":"ord_g"})", invariants_t0,
                  invariants_t0 + 10s + 600ms);
  planned_ += 2;
  const auto v = verdict();
  EXPECT_EQ(violated(v), names{"no deadline overrun beyond tolerance"});
  EXPECT_EQ(v.worst_overrun, 600ms);
  EXPECT_EQ(check(v, "no deadline overrun beyond tolerance").examples.size(), 1u);
}

TEST_F(SoakInvariants, MissingServerStatsFailTheirCheck) {
  clean_run();
  EXPECT_EQ(violated(verdict({.final = nlohmann::json::object()})),
            names{"server stats: orders_with_multiple_charges"});
}

TEST_F(SoakInvariants, ADoubleChargeTheServerSawWhileRunningFailsItsCheck) {
  // Refunded by the end (the final count is 0), but the server counted it while it stood.
  clean_run();
  const auto v =
      verdict({.final = {{"orders_with_multiple_charges", 0}}, .peak_multiple_charges = 1});
  EXPECT_EQ(violated(v), names{"server stats: orders_with_multiple_charges"});
  EXPECT_EQ(check(v, "server stats: orders_with_multiple_charges").value,
            "0 (peak 1 while running)");
}

TEST_F(SoakInvariants, AServerThatEndedOnItsOwnIsFlagged) {
  clean_run();
  const auto v = verdict({.final = {{"orders_with_multiple_charges", 0}},
                          .unexpected_exits = {"killed by signal 11 at 812 final intents"}});
  EXPECT_EQ(violated(v), names{"server never ended on its own"});
  EXPECT_EQ(check(v, "server never ended on its own").examples,
            std::vector<std::string>{"killed by signal 11 at 812 final intents"});
}

}  // namespace
}  // namespace idem::soak
