// What the fuzz targets (fuzz/) found in the SDK, pinned where the bug was. Each input that
// crashed is also kept as a seed in fuzz/corpus/<target>/, which CTest replays.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "idem/business_lookup.hpp"
#include "idem/orders.hpp"
#include "tests/idem/support/client_fixture.hpp"

namespace idem::test {
namespace {

using idem::kit::reply;

// "[[[[...]]]]", `depth` levels deep: a few hundred kilobytes, well within an answer's size limit.
std::string nested_arrays(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

// fuzz/corpus/client_lookup/deeply_nested_record: dumping the found record recursed once per
// level and overflowed the stack.
TEST(FuzzRegression, ALookupAnswerNestedTooDeepIsNoAnswerNotAStackOverflow) {
  const auto lookup = orders::order_created_lookup("m-1");
  const std::string body =
      R"({"data":[{"merchant_order_id":"m-1","x":)" + nested_arrays(100'000) + "}]}";
  const auto judgement = judge_lookup(lookup, nlohmann::json::object(), 200, body);
  EXPECT_EQ(judgement.verdict, lookup_verdict::retry);
  EXPECT_TRUE(judgement.record.empty());
}

TEST(FuzzRegression, ALookupAnswerOfOrdinaryDepthIsStillRead) {
  const auto lookup = orders::order_created_lookup("m-1");
  const std::string body =
      R"({"data":[{"merchant_order_id":"m-1","x":)" + nested_arrays(200) + "}]}";
  EXPECT_EQ(judge_lookup(lookup, nlohmann::json::object(), 200, body).verdict,
            lookup_verdict::found);
}

// The same recursion in the 202 status resource: its response body was dumped as is. The deep
// status is no answer; the next poll's ordinary one settles the intent.
TEST_F(client_test, AStatusResourceNestedTooDeepIsNoAnswerNotAStackOverflow) {
  auto opts = options();
  opts.poll_interval = 1s;
  opts.resend_interval = 20s;
  auto c = make_client(opts);
  const std::string deep_status =
      R"({"state":"COMPLETED","response":{"status":201,"body":)" + nested_arrays(100'000) + "}}";
  const std::string final_status = R"({"state":"COMPLETED","response":{"status":201,"body":{}}})";
  auto statuses = std::make_shared<std::vector<std::string>>(
      std::vector<std::string>{deep_status, final_status});
  net->respond(script({reply(202, "{}", {{"Location", "/v1/requests/req_1"}})},
                      [statuses](const http_request&) {
                        auto answer = reply(200, statuses->front());
                        if (statuses->size() > 1) statuses->erase(statuses->begin());
                        return answer;
                      }));
  EXPECT_EQ(submit(*c, orders::create(sample_order())).kind(), outcome_kind::succeeded);
  EXPECT_EQ(statuses->size(), 1u) << "the deep status was never asked for";
}

}  // namespace
}  // namespace idem::test
