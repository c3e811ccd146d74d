// What one request may cost the server (issue 43, items 2 and 3): a 64 KiB create of 21,816 `{}`
// items got a 3.8 MB 400 listing 65,448 errors, and a non-UTF-8 byte in a POST path got a 500
// (the SDK then retried a definite 404 until its deadline).
#include <gtest/gtest.h>

#include <string>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::kit {
namespace {

using json = nlohmann::json;

// A create body whose `items` are `count` empty objects: three errors per item.
std::string create_with_empty_items(std::size_t count) {
  std::string body = R"({"items":[)";
  for (std::size_t i = 0; i < count; ++i)
    body += i == 0 ? "{}" : ",{}";
  body += "]}";
  return body;
}

class RequestBounds : public ::testing::Test {
 protected:
  running_server server_;
  api_client api_{server_.port()};

  http_result post_raw_body(const std::string& key, const std::string& body) {
    return api_.raw().send("POST", orders,
                           {{"Authorization", "Bearer tenant-a"}, {"Idempotency-Key", key}}, body);
  }
};

TEST_F(RequestBounds, SixtyFourKibOfEmptyItemsGetsAShortAnswerNotAnErrorPerItem) {
  const auto body = create_with_empty_items(21'816);
  ASSERT_LE(body.size(), 65'536u);
  auto r = post_raw_body("k-1", body);
  ASSERT_TRUE(is_problem(r, 400, "validation-failed"));
  EXPECT_LT(r.res.body.size(), body.size() / 10) << r.res.body.size() << " bytes";
  const auto problem = r.res.json();
  ASSERT_TRUE(problem.at("errors").is_array());
  EXPECT_LE(problem.at("errors").size(), 20u);
  // The item cap answers first: no item was looked at.
  bool names_the_cap = false;
  std::size_t item_errors = 0;
  for (const auto& e : problem.at("errors")) {
    if (e.at("field") == "items" &&
        e.at("message").get<std::string>().find("at most 1000") != std::string::npos) {
      names_the_cap = true;
    }
    if (e.at("field").get<std::string>().starts_with("items[")) ++item_errors;
  }
  EXPECT_TRUE(names_the_cap) << r.res.body.substr(0, 2000);
  EXPECT_EQ(item_errors, 0u);
  EXPECT_EQ(stat(api_, "idempotency_records"), 0);
}

TEST_F(RequestBounds, ErrorsBeyondTwentyAreCountedNotListed) {
  // 500 items under the cap: 1,500 item errors plus the four missing top-level fields.
  auto r = post_raw_body("k-1", create_with_empty_items(500));
  ASSERT_TRUE(is_problem(r, 400, "validation-failed"));
  const auto problem = r.res.json();
  ASSERT_EQ(problem.at("errors").size(), 20u) << r.res.body.substr(0, 2000);
  EXPECT_EQ(problem.at("errors_omitted"), 1'504 - 20);
  // The list starts with what a client fixes first: the order's own fields.
  EXPECT_EQ(problem.at("errors")[0].at("field"), "merchant_order_id");
}

TEST_F(RequestBounds, AFewErrorsAreAllListedWithoutAnOmittedCount) {
  auto body = order_body("m-1");
  body["currency"] = "eur";
  auto r = api_.post(orders, "k-1", body);
  ASSERT_TRUE(is_problem(r, 400, "validation-failed"));
  EXPECT_EQ(r.res.json().at("errors").size(), 1u);
  EXPECT_FALSE(r.res.json().contains("errors_omitted")) << r.res.body;
}

TEST_F(RequestBounds, AThousandItemsAreStillAnOrder) {
  json items = json::array();
  for (int i = 0; i < 1000; ++i)
    items.push_back({{"sku", "s" + std::to_string(i)}, {"quantity", 1}, {"unit_price_minor", 1}});
  auto body = order_body("m-1");
  body["items"] = items;
  body["amount_minor"] = 1000;
  EXPECT_TRUE(has_status(api_.post(orders, "k-1", body), 201));
  body["items"].push_back({{"sku", "one-more"}, {"quantity", 1}, {"unit_price_minor", 0}});
  EXPECT_TRUE(is_problem(api_.post(orders, "k-2", body), 400, "validation-failed"));
}

// The path was written into the record's request as JSON, whose strict dump threw on the byte.
TEST_F(RequestBounds, NonUtf8ByteInAPostPathIsANotFoundWithAJsonBody) {
  const auto id = api_.create_order("m-1", "k-create");
  for (const std::string& target : {orders + "/ord_\xff/cancel", orders + "/\xc3\x28/payments",
                                    orders + "/" + id + "\xfe/cancel"}) {
    const std::string body = target.ends_with("cancel") ? "{}" : payment_body().dump();
    auto r = api_.raw().send(
        "POST", target, {{"Authorization", "Bearer tenant-a"}, {"Idempotency-Key", "k-bad"}}, body);
    ASSERT_TRUE(is_problem(r, 404, "not-found")) << target;
    EXPECT_NO_THROW((void)r.res.json());
    // A GET of the same bytes is answered the same way.
    auto get = api_.raw().send("GET", target.substr(0, target.rfind('/')),
                               {{"Authorization", "Bearer tenant-a"}});
    EXPECT_TRUE(is_problem(get, 404, "not-found")) << target;
  }
  EXPECT_EQ(stat(api_, "idempotency_records"), 1);
  auto order = api_.get(orders + "/" + id);
  ASSERT_TRUE(has_status(order, 200));
  EXPECT_EQ(order.res.json().at("status"), "CREATED");
}

}  // namespace
}  // namespace idem::kit
