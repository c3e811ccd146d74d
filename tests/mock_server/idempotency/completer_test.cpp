// The completer (issue: hardening, item 2): PROCESSING records whose lease expired are driven to
// their end without waiting for their client, by the same takeover a retry would do, so a client
// that never comes back leaves no order half-paid and no charge unaccounted for.
#include <gtest/gtest.h>
#include <signal.h>

#include <optional>
#include <string>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/support/temp_db_file.hpp"

namespace idem::kit {
namespace {

// Runs the completer now; returns how many records it settled (-1 on a bad answer).
std::int64_t run_completer(api_client& api) {
  auto r = api.admin("POST", "/_mock/complete");
  EXPECT_EQ(r.res.status, 200) << r.res.body;
  return r.res.status == 200 ? r.res.json().value("settled", std::int64_t{-1}) : -1;
}

class Completer : public ::testing::Test {
 protected:
  running_server server_;
  api_client api_{server_.port()};
};

TEST_F(Completer, PaymentWhoseProviderCallTimedOutIsSettledWithItsChargeWithoutItsClient) {
  const auto id = api_.create_order("m-1", "k-create");
  const auto payments = orders + "/" + id + "/payments";
  api_.set_faults(only(on_pay("provider_timeout")));  // every provider call the clients make
  ASSERT_TRUE(has_status(api_.post(payments, "p1", payment_body()), 504));

  EXPECT_EQ(run_completer(api_), 1);
  EXPECT_EQ(api_.get(orders + "/" + id).res.json().at("status"), "PAID");
  EXPECT_EQ(stat(api_, "abandoned_settled"), 1);
  EXPECT_EQ(stat(api_, "provider_charges"), 1);
  EXPECT_EQ(stat(api_, "payments"), 1);

  auto back = api_.post(payments, "p1", payment_body());  // the client, much later
  ASSERT_TRUE(has_status(back, 201));
  EXPECT_TRUE(replayed_header_is(back, "true"));
  EXPECT_EQ(stat(api_, "provider_charges"), 1);
  EXPECT_EQ(run_completer(api_), 0);
}

TEST_F(Completer, CrashedCreateIsLeftAloneWhileItsLeaseRunsThenCompletedOnce) {
  api_.set_faults(only(on_create("crash_during_processing", {{"times", 1}})));
  auto crashed = api_.post(orders, "k-1", order_body("m-1"));
  ASSERT_EQ(crashed.ec, std::errc::connection_reset) << crashed.ec.message();

  EXPECT_EQ(run_completer(api_), 0);  // the lease still runs: its executor may be alive
  EXPECT_EQ(stat(api_, "orders"), 0);

  api_.advance_clock(31);
  EXPECT_EQ(run_completer(api_), 1);
  EXPECT_EQ(stat(api_, "orders"), 1);
  auto back = api_.post(orders, "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(back, 201));
  EXPECT_TRUE(replayed_header_is(back, "true"));
  EXPECT_EQ(back.res.json().at("merchant_order_id"), "m-1");
  EXPECT_EQ(run_completer(api_), 0);
  EXPECT_EQ(stat(api_, "orders"), 1);
}

TEST_F(Completer, CrashedPaymentKeepsTheChargeMadeBeforeTheCrashAndNeverChargesAgain) {
  const auto id = api_.create_order("m-1", "k-create");
  const auto payments = orders + "/" + id + "/payments";
  api_.set_faults(only(on_pay("crash_during_processing", {{"times", 1}})));
  auto crashed = api_.post(payments, "p1", payment_body());
  ASSERT_EQ(crashed.ec, std::errc::connection_reset) << crashed.ec.message();
  ASSERT_EQ(stat(api_, "provider_charges"), 1);

  api_.advance_clock(31);
  EXPECT_EQ(run_completer(api_), 1);
  EXPECT_EQ(stat(api_, "provider_charges"), 1);
  EXPECT_EQ(stat(api_, "payments"), 1);
  EXPECT_EQ(stat(api_, "orders_with_multiple_charges"), 0);
  EXPECT_EQ(api_.get(orders + "/" + id).res.json().at("status"), "PAID");
}

TEST_F(Completer, CancelWhoseRefundTimedOutIsFinishedWithOneRefund) {
  const auto id = api_.create_order("m-1", "k-create");
  ASSERT_TRUE(has_status(api_.post(orders + "/" + id + "/payments", "p1", payment_body()), 201));
  api_.set_faults(only(fault_rule("provider_timeout", "/v1/orders/{id}/cancel")));
  ASSERT_TRUE(has_status(api_.post(orders + "/" + id + "/cancel", "c1", {{"reason", "x"}}), 504));

  EXPECT_EQ(run_completer(api_), 1);
  EXPECT_EQ(api_.get(orders + "/" + id).res.json().at("status"), "CANCELLED");
  EXPECT_EQ(stat(api_, "provider_refunds"), 1);
}

TEST(CompleterProcess, RecordsAKilledServerLeftProcessingAreCompletedByTheNextOneWithoutClients) {
  temp_db_file db;
  auto args = [&](const char* interval) {
    return std::vector<std::string>{
        "--listen",  "127.0.0.1:0",          "--db",  db.path(), "--admin-token",
        admin_token, "--completer-interval", interval};
  };
  std::optional<server_process> server{args("1h")};
  api_client api{server->port()};
  api.set_faults(only(on_create("crash_during_processing", {{"times", 1}})));
  auto crashed = api.post(orders, "k-1", order_body("m-1"));
  ASSERT_EQ(crashed.ec, std::errc::connection_reset) << crashed.ec.message();
  server->stop(SIGKILL);
  server.reset();

  server.emplace(args("20ms"));  // start-up expires the dead run's leases; the timer does the rest
  api_client after{server->port()};
  EXPECT_TRUE(eventually([&] { return stat(after, "abandoned_settled") == 1; }));
  EXPECT_EQ(stat(after, "orders"), 1);
}

}  // namespace
}  // namespace idem::kit
