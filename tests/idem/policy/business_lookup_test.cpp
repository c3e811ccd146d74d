// The declarative lookup by business ID: URL templates, how answers are read (absent, ours,
// other, missing fields, malformed answers), the orders presets, and the JSON form a journal
// stores.
#include "idem/business_lookup.hpp"

#include <gtest/gtest.h>

#include "idem/orders.hpp"

namespace idem {
namespace {

using json = nlohmann::json;

const json payload = {{"merchant_order_id", "m 1/x"},
                      {"customer_id", "c-1"},
                      {"currency", "EUR"},
                      {"amount_minor", 1500},
                      {"items", {{{"sku", "s-1"}, {"quantity", 3}, {"unit_price_minor", 500}}}}};

json order(json changes = json::object()) {
  json o = payload;
  o["id"] = "ord_1";
  o["status"] = "CREATED";
  o["items"][0]["line_total_minor"] = 1500;  // a field of the server's own
  o.merge_patch(changes);
  return o;
}

lookup_verdict verdict(const business_lookup& l, int status, const json& body) {
  return judge_lookup(l, payload, status, body.dump()).verdict;
}

const business_lookup created = orders::order_created_lookup("m 1/x");

TEST(BusinessLookup, UrlTemplatesFillBusinessIdAndPayloadFieldsPercentEncoded) {
  EXPECT_EQ(expand_lookup_url(created, payload), "/v1/orders?merchant_order_id=m%201%2Fx");
  business_lookup l{.url = "/c/{customer_id}/o/{/items/0/sku}?amount={amount_minor}",
                    .business_id = "b"};
  EXPECT_EQ(expand_lookup_url(l, payload), "/c/c-1/o/s-1?amount=1500");
  l.url = "/x/{missing}";
  EXPECT_FALSE(expand_lookup_url(l, payload));
  l.url = "/x/{business_id";
  EXPECT_FALSE(expand_lookup_url(l, payload));
  EXPECT_FALSE(expand_lookup_url(business_lookup{}, payload));
}

TEST(BusinessLookup, AbsentWhen404OrEmptyListOrNoRecordAboutTheBusinessId) {
  EXPECT_EQ(verdict(created, 404, json::object()), lookup_verdict::not_found);
  EXPECT_EQ(verdict(created, 410, json::object()), lookup_verdict::not_found);
  EXPECT_EQ(verdict(created, 200, {{"data", json::array()}}), lookup_verdict::not_found);
  // A server that ignores the query and lists other orders: none is about our business ID.
  EXPECT_EQ(verdict(created, 200, {{"data", {order({{"merchant_order_id", "m-2"}})}}}),
            lookup_verdict::not_found);
}

TEST(BusinessLookup, OursWhenEveryComparedFieldAgrees) {
  auto j = judge_lookup(created, payload, 200, json{{"data", {order()}}}.dump());
  EXPECT_EQ(j.verdict, lookup_verdict::found);
  EXPECT_EQ(json::parse(j.record)["id"], "ord_1");
}

TEST(BusinessLookup, MissingFieldsOnEitherSideAreNotAConflict) {
  json sparse = {{"id", "ord_1"}, {"merchant_order_id", "m 1/x"}, {"status", "CREATED"}};
  EXPECT_EQ(verdict(created, 200, {{"data", {sparse}}}), lookup_verdict::found);
  json no_items = order();
  no_items.erase("items");
  EXPECT_EQ(verdict(created, 200, {{"data", {no_items}}}), lookup_verdict::found);
  // Numbers compare by value, whatever their JSON spelling.
  EXPECT_EQ(verdict(created, 200, {{"data", {order({{"amount_minor", 1500.0}})}}}),
            lookup_verdict::found);
}

TEST(BusinessLookup, OtherContentUnderAUniqueBusinessIdIsAConflict) {
  auto j =
      judge_lookup(created, payload, 200, json{{"data", {order({{"amount_minor", 99}})}}}.dump());
  EXPECT_EQ(j.verdict, lookup_verdict::conflicting);
  EXPECT_EQ(json::parse(j.record)["amount_minor"], 99);
  json fewer_items = order();
  fewer_items["items"] = json::array();
  EXPECT_EQ(verdict(created, 200, {{"data", {fewer_items}}}), lookup_verdict::conflicting);
  // Ours anywhere in the list wins over another record.
  EXPECT_EQ(verdict(created, 200, {{"data", {order({{"amount_minor", 99}}), order()}}}),
            lookup_verdict::found);
}

TEST(BusinessLookup, OtherContentIsJustNotOursWithoutConflictOnOther) {
  const auto paid = orders::payment_captured_lookup("ord_1");
  const json pay = {{"amount_minor", 1500}, {"currency", "EUR"}, {"payment_method", "card"}};
  auto with_payments = [](json payments) { return order({{"payments", std::move(payments)}}); };
  auto v = [&](const json& body) { return judge_lookup(paid, pay, 200, body.dump()).verdict; };
  EXPECT_EQ(v(with_payments(json::array())), lookup_verdict::not_found);
  EXPECT_EQ(v(with_payments({{{"id", "pay_1"}, {"amount_minor", 10}, {"currency", "EUR"}}})),
            lookup_verdict::not_found);
  EXPECT_EQ(v(with_payments({{{"id", "pay_2"}, {"amount_minor", 1500}, {"currency", "EUR"}}})),
            lookup_verdict::found);
  // A record that has none of the compared fields proves nothing.
  EXPECT_EQ(v(with_payments({{{"id", "pay_3"}}})), lookup_verdict::not_found);
}

TEST(BusinessLookup, FixedValueRules) {
  const auto cancelled = orders::order_cancelled_lookup("ord_1");
  auto v = [&](const json& body) {
    return judge_lookup(cancelled, json::object(), 200, body.dump()).verdict;
  };
  EXPECT_EQ(v(order({{"status", "CANCELLED"}})), lookup_verdict::found);
  EXPECT_EQ(v(order({{"status", "PAID"}})), lookup_verdict::not_found);
  json no_status = order();
  no_status.erase("status");
  EXPECT_EQ(v(no_status), lookup_verdict::not_found);
}

TEST(BusinessLookup, MalformedOrUselessAnswers) {
  EXPECT_EQ(judge_lookup(created, payload, 200, "<html>gateway</html>").verdict,
            lookup_verdict::retry);
  EXPECT_EQ(verdict(created, 200, {{"items", json::array()}}), lookup_verdict::retry);  // no /data
  EXPECT_EQ(verdict(created, 200, {{"data", "nope"}}), lookup_verdict::retry);
  EXPECT_EQ(verdict(created, 200, {{"data", {1, "x", nullptr}}}), lookup_verdict::not_found);
  for (int status : {500, 502, 503, 408, 429}) {
    EXPECT_EQ(verdict(created, status, json::object()), lookup_verdict::retry) << status;
  }
  // Contract section 8: only 404, 410 or a readable list without ours prove absence. Any other
  // answer proves nothing either way (it once read as not_found, which licensed a re-send of a
  // key past the server's retention).
  for (int status : {201, 204, 206, 301, 302, 400, 401, 403, 405, 418}) {
    EXPECT_EQ(verdict(created, status, {{"data", {order()}}}), lookup_verdict::inconclusive)
        << status;
    EXPECT_EQ(verdict(created, status, {{"data", json::array()}}), lookup_verdict::inconclusive)
        << status;
  }
  EXPECT_EQ(verdict(created, 203, {{"data", json::array()}}), lookup_verdict::not_found);
  business_lookup bad = created;
  bad.select = "data";  // not a JSON pointer
  EXPECT_EQ(verdict(bad, 200, {{"data", {order()}}}), lookup_verdict::retry);
}

TEST(BusinessLookup, ANamedPredicateMustAgreeAndAnUnknownOneSettlesNothing) {
  business_lookup l = created;
  l.predicate = "same-customer";
  const lookup_predicate same_customer = [](const json& ours, const json& record) {
    return record.value("customer_id", "") == ours.value("customer_id", "") ? record_match::ours
                                                                            : record_match::other;
  };
  EXPECT_EQ(judge_lookup(l, payload, 200, json{{"data", {order()}}}.dump(), &same_customer).verdict,
            lookup_verdict::found);
  EXPECT_EQ(judge_lookup(l, payload, 200, json{{"data", {order({{"customer_id", "c-9"}})}}}.dump(),
                         &same_customer)
                .verdict,
            lookup_verdict::conflicting);
  EXPECT_EQ(judge_lookup(l, payload, 200, json{{"data", {order()}}}.dump(), nullptr).verdict,
            lookup_verdict::not_found);
}

TEST(BusinessLookup, JsonRoundTrip) {
  business_lookup l{.url = "/o/{business_id}",
                    .business_id = "b-1",
                    .select = "/data",
                    .identify = "/ref",
                    .match = {{"/a"},
                              {.pointer = "/b", .payload_pointer = "/c"},
                              {.pointer = "/status", .equals = "DONE"}},
                    .conflict_on_other = true,
                    .predicate = "p"};
  EXPECT_EQ(business_lookup_from_json(to_json(l)), l);
  EXPECT_EQ(business_lookup_from_json(to_json(created)), created);
  EXPECT_FALSE(business_lookup_from_json(json::array()));
  EXPECT_FALSE(business_lookup_from_json({{"url", 5}}));
  EXPECT_FALSE(business_lookup_from_json({{"match", {{{"pointer", 1}}}}}));
}

}  // namespace
TEST(BusinessLookup, CountsEveryRecordThatIsOurs) {
  // A backend that executed the intent twice holds two records of ours: found, and counted.
  auto j = judge_lookup(
      created, payload, 200,
      json{{"data", {order(), order(), order({{"merchant_order_id", "other"}})}}}.dump());
  EXPECT_EQ(j.verdict, lookup_verdict::found);
  EXPECT_EQ(j.matches, 2u);
  j = judge_lookup(created, payload, 200, json{{"data", {order()}}}.dump());
  EXPECT_EQ(j.matches, 1u);
}

}  // namespace idem
