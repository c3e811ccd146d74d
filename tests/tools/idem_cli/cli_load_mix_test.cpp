// idem-cli load --mix (tools/idem_cli/load/load_mix.cpp, load_plan.cpp): the mix's syntax, the
// seeded per-order draw that another program (idem-soak) can count without seeing the plan,
// the plan it makes (double taps with new keys, payments and cancels after the first create),
// its flags, and a mixed load end to end against the in-process mock server.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "idem_cli/command_line/command_line.hpp"
#include "idem_cli/load/load_command.hpp"
#include "idem_cli/load/load_mix.hpp"
#include "idem_cli/load/load_plan.hpp"
#include "tests/support/http/api_client.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/tools/support/cli_run.hpp"

namespace idem::cli {
namespace {

using strings = std::vector<std::string>;

const load_mix every_kind{.pay = 0.8, .cancel = 0.2, .double_pay = 0.1, .double_order = 0.05};

std::string mix_error(std::string_view text) {
  auto parsed = parse_load_mix(text);
  auto* error = std::get_if<std::string>(&parsed);
  return error ? *error : "<parsed>";
}

// The usage error of a load of 3 orders with `extra` flags.
std::string load_usage_message(const strings& extra) {
  strings args{"load", "--url", "http://h", "--token", "t", "--orders", "3"};
  args.insert(args.end(), extra.begin(), extra.end());
  return cli_test::usage_message(args);
}

TEST(CliLoadMix, ParsesEveryNameInAnyOrderAndWritesItBack) {
  auto parsed = parse_load_mix("double-order=0.05,cancel=0.2,pay=0.8,double-pay=0.1");
  ASSERT_TRUE(std::holds_alternative<load_mix>(parsed)) << std::get<std::string>(parsed);
  const auto mix = std::get<load_mix>(parsed);
  EXPECT_EQ(mix.pay, 0.8);
  EXPECT_EQ(mix.cancel, 0.2);
  EXPECT_EQ(mix.double_pay, 0.1);
  EXPECT_EQ(mix.double_order, 0.05);
  EXPECT_EQ(to_string(mix), "pay=0.8,cancel=0.2,double-pay=0.1,double-order=0.05");
  const auto only_pay = std::get<load_mix>(parse_load_mix("pay=1"));
  EXPECT_EQ(to_string(only_pay), "pay=1,cancel=0,double-pay=0,double-order=0");
}

TEST(CliLoadMix, RefusesWhatItCannotRead) {
  EXPECT_EQ(mix_error(""), "empty (e.g. pay=0.8,cancel=0.2)");
  EXPECT_EQ(mix_error("refund=0.1"),
            "unknown name 'refund' (pay, cancel, double-pay, double-order)");
  EXPECT_EQ(mix_error("pay=0.5,pay=0.6"), "pay given twice");
  EXPECT_EQ(mix_error("pay=1.5"), "pay: '1.5' is not a number from 0 to 1");
  EXPECT_EQ(mix_error("cancel=-0.1"), "cancel: '-0.1' is not a number from 0 to 1");
  EXPECT_EQ(mix_error("pay=lots"), "pay: 'lots' is not a number from 0 to 1");
  EXPECT_EQ(mix_error("pay"), "'pay' is not name=number");
  for (const std::string_view bad : {"+0.5", " 0.5", "0.5 ", "0.5x", ".", "1.01", "2", "1e-1",
                                     "0.1234567890123456", "0x0.8", "nan", "inf"}) {
    EXPECT_EQ(mix_error("pay=" + std::string(bad)),
              "pay: '" + std::string(bad) + "' is not a number from 0 to 1");
  }
}

// The shares are read by the project's own decimal reader, not std::from_chars (libc++ has none
// for double): every decimal form gives the double from_chars would, the nearest one.
TEST(CliLoadMix, ReadsEachDecimalFormAsTheNearestDouble) {
  const std::pair<std::string_view, double> forms[] = {
      {"0", 0.0},   {"1", 1.0},      {"1.0", 1.0},   {"1.000", 1.0},
      {"0.5", 0.5}, {".5", 0.5},     {"0.", 0.0},    {"00.25", 0.25},
      {"0.1", 0.1}, {"0.3", 0.3},    {"0.05", 0.05}, {"0.123456789012345", 0.123456789012345},
      {"0.7", 0.7}, {"0.999", 0.999}};
  for (const auto& [text, expected] : forms) {
    auto parsed = parse_load_mix("cancel=" + std::string(text));
    ASSERT_TRUE(std::holds_alternative<load_mix>(parsed))
        << text << ": " << std::get<std::string>(parsed);
    EXPECT_EQ(std::get<load_mix>(parsed).cancel, expected) << text;
  }
}

TEST(CliLoadMix, TheDrawIsAPureFunctionOfMixSeedAndOrder) {
  for (std::size_t n = 0; n < 200; ++n) {
    const order_mix a = mix_for_order(every_kind, 42, n);
    const order_mix b = mix_for_order(every_kind, 42, n);
    EXPECT_EQ(a.double_order, b.double_order);
    EXPECT_EQ(a.pay, b.pay);
    EXPECT_EQ(a.double_pay, b.double_pay);
    EXPECT_EQ(a.cancel, b.cancel);
    EXPECT_TRUE(a.pay || !a.double_pay) << "a second payment without a first, order " << n;
  }
  // Another seed draws another plan.
  EXPECT_NE(count_mix(every_kind, 42, 1000).total(), count_mix(every_kind, 43, 1000).total());
}

TEST(CliLoadMix, TheDrawFollowsTheMixOverManyOrders) {
  const mix_counts c = count_mix(every_kind, 7, 10'000);
  EXPECT_EQ(c.creates, 10'000u);
  EXPECT_NEAR(static_cast<double>(c.payments), 8'000, 300);
  EXPECT_NEAR(static_cast<double>(c.cancels), 2'000, 300);
  EXPECT_NEAR(static_cast<double>(c.double_payments), 800, 150);
  EXPECT_NEAR(static_cast<double>(c.double_orders), 500, 150);
  EXPECT_EQ(count_mix({}, 7, 100).total(), 100u);  // nothing but the creates
  EXPECT_EQ(count_mix({.pay = 1, .cancel = 1, .double_pay = 1, .double_order = 1}, 7, 100).total(),
            500u);
}

TEST(CliLoadMix, ThePlanHoldsWhatTheDrawCounts) {
  const load_args args{.common = {.url = "http://shop.test", .token = "t"},
                       .orders = 300,
                       .mix = every_kind,
                       .seed = 11};
  const run_plan plan = load_plan(args);
  const mix_counts c = count_mix(every_kind, 11, 300);
  EXPECT_EQ(plan.ready.size(), c.creates + c.double_orders);
  EXPECT_EQ(plan.after.size(), c.payments + c.double_payments + c.cancels);

  std::set<std::string> keys;
  std::map<std::string, std::string> first_create_of_body;  // body -> key of its first create
  std::size_t double_orders = 0;
  for (std::size_t n = 0; n < plan.ready.size(); ++n) {
    const intent& i = plan.ready[n];
    EXPECT_TRUE(keys.insert(i.key().str()).second) << "a key used twice";
    EXPECT_EQ(i.op().path, "/v1/orders");
    auto [it, first] = first_create_of_body.emplace(i.body(), i.key().str());
    if (!first) {
      // The same cart again, right after the first, with a new key.
      ++double_orders;
      EXPECT_EQ(plan.ready[n - 1].body(), i.body());
    }
  }
  EXPECT_EQ(double_orders, c.double_orders);
  std::set<std::string> first_creates;
  for (const auto& [body, key] : first_create_of_body)
    first_creates.insert(key);
  std::map<std::string, int> payments_of;  // by the create they wait for
  std::size_t cancels = 0;
  for (const planned_intent& p : plan.after) {
    EXPECT_TRUE(keys.insert(p.key().str()).second) << "a key used twice";
    EXPECT_EQ(first_creates.count(p.depends_on()), 1u) << "a plan waits for a double tap";
    if (p.draft().op().path == "/v1/orders/{id}/payments") ++payments_of[p.depends_on()];
    if (p.draft().op().path == "/v1/orders/{id}/cancel") ++cancels;
  }
  std::size_t paid_twice = 0;
  for (const auto& [order, n] : payments_of)
    paid_twice += n == 2 ? 1 : 0;
  EXPECT_EQ(payments_of.size(), c.payments);
  EXPECT_EQ(paid_twice, c.double_payments);
  EXPECT_EQ(cancels, c.cancels);
}

TEST(CliLoadMix, OnDemandThePlanHoldsTheSameIntentsOneOrderAtATime) {
  const load_args args{.common = {.url = "http://shop.test", .token = "t"},
                       .orders = 300,
                       .mix = every_kind,
                       .seed = 11};
  const run_plan whole = load_plan(args);
  run_plan lazy = load_plan_on_demand(args);
  EXPECT_TRUE(lazy.ready.empty());
  EXPECT_TRUE(lazy.after.empty());
  EXPECT_EQ(lazy.more_intents, whole.ready.size() + whole.after.size());
  ASSERT_TRUE(lazy.more);
  std::vector<intent> ready;
  std::vector<planned_intent> after;
  std::size_t calls = 0;
  while (lazy.more(ready, after))
    ++calls;
  EXPECT_EQ(calls, args.orders);  // one order per call
  EXPECT_FALSE(lazy.more(ready, after));
  ASSERT_EQ(ready.size(), whole.ready.size());
  ASSERT_EQ(after.size(), whole.after.size());
  // The same requests in the same order (the run's own merchant_order_id prefix aside), each
  // plan waiting for the create at the same place.
  auto index_of = [](const std::vector<intent>& v, const std::string& key) {
    for (std::size_t i = 0; i < v.size(); ++i)
      if (v[i].key().str() == key) return i;
    return v.size();
  };
  auto without_id = [](nlohmann::json j) {
    j.erase("merchant_order_id");
    return j;
  };
  for (std::size_t i = 0; i < ready.size(); ++i) {
    EXPECT_EQ(ready[i].op().path, whole.ready[i].op().path);
    EXPECT_EQ(without_id(ready[i].payload()), without_id(whole.ready[i].payload()));
    EXPECT_EQ(ready[i].lookup().url, whole.ready[i].lookup().url);
  }
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].draft().op().path, whole.after[i].draft().op().path);
    EXPECT_EQ(index_of(ready, after[i].depends_on()),
              index_of(whole.ready, whole.after[i].depends_on()));
  }
}

TEST(CliLoadMix, FlagsAreParsedAndCheckedTogether) {
  auto cmd = parse_command_line({"load", "--url", "http://h", "--token", "t", "--orders", "3",
                                 "--mix", "pay=0.5,cancel=0.1", "--seed=99"});
  auto* load = std::get_if<load_args>(&cmd);
  ASSERT_NE(load, nullptr) << std::get<usage_error>(cmd).message;
  ASSERT_TRUE(load->mix.has_value());
  EXPECT_EQ(load->mix->pay, 0.5);
  EXPECT_EQ(load->mix->cancel, 0.1);
  EXPECT_EQ(load->seed, 99u);
  EXPECT_FALSE(load->pay);
  auto plain = std::get<load_args>(
      parse_command_line({"load", "--url", "http://h", "--token", "t", "--orders", "3"}));
  EXPECT_FALSE(plain.mix.has_value());

  EXPECT_EQ(load_usage_message({"--seed", "3"}), "--seed needs --mix");
  EXPECT_EQ(load_usage_message({"--pay", "--mix", "pay=1"}),
            "--pay and --mix contradict (give the payments' share in --mix: pay=1)");
  EXPECT_EQ(load_usage_message({"--mix", "pay=2"}),
            "bad --mix: pay: '2' is not a number from 0 to 1");
  EXPECT_EQ(load_usage_message({"--mix", "pay=1", "--seed", "-1"}),
            "bad --seed '-1' (an integer from 0 to 2^64-1)");
}

TEST(CliLoadMix, AMixedLoadCreatesAndChargesEachOrderOnce) {
  kit::running_server server;
  constexpr std::size_t orders = 6;
  std::ostringstream progress_out;
  const load_summary s = run_load(
      {.common = {.url = "http://127.0.0.1:" + std::to_string(server.port()), .token = "shop-1"},
       .orders = orders,
       .concurrency = 4,
       .mix = load_mix{.pay = 1, .cancel = 1, .double_pay = 1, .double_order = 1},
       .seed = 5},
      progress_out, /*show_progress=*/false);
  // Per order: two creates of one cart, two payments, a cancel.
  EXPECT_EQ(s.intents, 5 * orders);
  EXPECT_EQ(s.counts.unresolved, 0u);
  EXPECT_EQ(s.counts.succeeded + s.counts.rejected + s.counts.not_sent, s.intents);
  EXPECT_GE(s.counts.rejected, orders) << "one create of each cart is refused";

  const auto stats = kit::api_client(server.port(), "shop-1").stats();
  EXPECT_EQ(stats["orders"], orders) << stats.dump();
  EXPECT_EQ(stats["max_keys_per_business_id"], 2) << stats.dump();
  EXPECT_EQ(stats["orders_with_multiple_charges"], 0) << stats.dump();
  // Every order ends cancelled: whatever was charged was refunded.
  EXPECT_EQ(stats["provider_charges"], stats["provider_refunds"]) << stats.dump();
}

}  // namespace
}  // namespace idem::cli
