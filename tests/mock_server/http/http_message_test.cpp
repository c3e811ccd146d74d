#include "mock_server/http/http_message.hpp"

#include <gtest/gtest.h>

namespace idem::mock {
namespace {

TEST(HttpMessage, IequalsIgnoresAsciiCaseOnly) {
  EXPECT_TRUE(iequals("Idempotency-Key", "idempotency-KEY"));
  EXPECT_TRUE(iequals("", ""));
  EXPECT_FALSE(iequals("Key", "Keys"));
  EXPECT_FALSE(iequals("a-b", "a_b"));
}

TEST(HttpMessage, PathAndQueryAreSplitAtTheFirstQuestionMark) {
  request req;
  req.target = "/v1/orders?merchant_order_id=mo-1&x=?";
  EXPECT_EQ(req.path(), "/v1/orders");
  EXPECT_EQ(req.query(), "merchant_order_id=mo-1&x=?");
}

TEST(HttpMessage, TargetWithoutQueryHasEmptyQuery) {
  request req;
  req.target = "/v1/orders/ord_1";
  EXPECT_EQ(req.path(), "/v1/orders/ord_1");
  EXPECT_EQ(req.query(), "");
}

TEST(HttpMessage, RequestHeaderLookupIgnoresCaseAndReturnsTheFirst) {
  request req;
  req.headers = {{"Prefer", "wait=5"}, {"Authorization", "Bearer t"}, {"PREFER", "respond-async"}};
  EXPECT_EQ(req.header("prefer"), "wait=5");
  EXPECT_EQ(req.header("authorization"), "Bearer t");
  EXPECT_FALSE(req.header("Idempotency-Key").has_value());
}

TEST(HttpMessage, HeaderCountCountsEveryCaseVariant) {
  request req;
  req.headers = {{"Idempotency-Key", "a"}, {"idempotency-key", "b"}, {"Accept", "*/*"}};
  EXPECT_EQ(req.header_count("IDEMPOTENCY-KEY"), 2u);
  EXPECT_EQ(req.header_count("Accept"), 1u);
  EXPECT_EQ(req.header_count("Prefer"), 0u);
}

TEST(HttpMessage, SetHeaderReplacesInPlaceIgnoringCase) {
  response res;
  res.set_header("Content-Type", "text/plain");
  res.set_header("Location", "/v1/orders/ord_1");
  res.set_header("content-type", "application/json");
  ASSERT_EQ(res.headers.size(), 2u);
  EXPECT_EQ(res.headers[0].first, "Content-Type");  // original spelling and position are kept
  EXPECT_EQ(res.headers[0].second, "application/json");
  EXPECT_EQ(res.header("CONTENT-TYPE"), "application/json");
}

TEST(HttpMessage, SetHeaderAppendsANewName) {
  response res;
  res.set_header("Idempotent-Replayed", "false");
  EXPECT_EQ(res.header("idempotent-replayed"), "false");
  EXPECT_FALSE(res.header("Retry-After").has_value());
}

TEST(QueryParam, FindsTheFirstOccurrence) {
  EXPECT_EQ(query_param("a=1&b=2&a=3", "a"), "1");
  EXPECT_EQ(query_param("a=1&b=2&a=3", "b"), "2");
}

TEST(QueryParam, AbsentParameterIsNullopt) {
  EXPECT_FALSE(query_param("a=1&b=2", "c").has_value());
  EXPECT_FALSE(query_param("", "a").has_value());
  EXPECT_FALSE(query_param("ab=1", "a").has_value());
}

TEST(QueryParam, NameWithoutValueIsEmpty) {
  EXPECT_EQ(query_param("flag&a=1", "flag"), "");
  EXPECT_EQ(query_param("a=", "a"), "");
}

TEST(QueryParam, PercentEscapesAndPlusAreDecoded) {
  EXPECT_EQ(query_param("merchant_order_id=mo%2F1+x%20y", "merchant_order_id"), "mo/1 x y");
  EXPECT_EQ(query_param("id=%c3%A9", "id"), "\xc3\xa9");
}

TEST(QueryParam, NamesAreDecodedBeforeComparison) {
  EXPECT_EQ(query_param("merchant%5Forder_id=mo-1", "merchant_order_id"), "mo-1");
}

TEST(QueryParam, MalformedPercentEscapesAreKeptLiterally) {
  EXPECT_EQ(query_param("a=100%", "a"), "100%");
  EXPECT_EQ(query_param("a=%zz", "a"), "%zz");
  EXPECT_EQ(query_param("a=%4", "a"), "%4");
}

TEST(QueryParam, EmptyPairsAreSkipped) {
  EXPECT_EQ(query_param("&&a=1&", "a"), "1");
}

TEST(QueryParam, ValueMayContainEqualsSigns) {
  EXPECT_EQ(query_param("a=b=c", "a"), "b=c");
}

}  // namespace
}  // namespace idem::mock
