// What a request leaves in the database (issue 43, item 3): a COMPLETED record kept its whole
// request, and unknown item fields were stored with the order for good, so 500 cancels with
// 60 KB bodies wrote 73 MB/s. A record keeps its request only while the completer may need it,
// and then only the fields an operation reads; replays and fingerprints are unchanged.
#include <gtest/gtest.h>

#include <string>

#include "mock_server/storage/sqlite.hpp"
#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/support/temp_db_file.hpp"

namespace idem::kit {
namespace {

using json = nlohmann::json;

const std::string filler(30'000, 'x');

class StoredRequest : public ::testing::Test {
 protected:
  temp_db_file db_;  // declared first: the server is gone before its files are removed
  running_server server_{[this] {
    auto o = test_server_options();
    o.db_path = db_.path();
    return o;
  }()};
  api_client api_{server_.port()};

  // Every stored text column of the database, concatenated: what a request left behind.
  std::string everything_stored() {
    mock::database reader{db_.path()};
    std::string all;
    for (const char* sql : {"SELECT request || COALESCE(response_body, '') ||"
                            " COALESCE(response_headers, '') FROM idempotency_records",
                            "SELECT items FROM orders"}) {
      auto& stmt = reader.prepare(sql);
      while (stmt.step())
        all += stmt.text(0);
      stmt.reset();
    }
    return all;
  }

  std::string request_of(const std::string& key) {
    mock::database reader{db_.path()};
    auto& stmt = reader.prepare("SELECT request FROM idempotency_records WHERE idem_key = ?1");
    stmt.bind(1, key);
    std::string out = stmt.step() ? stmt.text(0) : "(no record)";
    stmt.reset();
    return out;
  }
};

TEST_F(StoredRequest, UnknownFieldsAreNotStoredAndACompletedRecordKeepsNoRequest) {
  auto body = order_body("m-1");
  body["note"] = "top-" + filler;
  body["items"][0]["colour"] = "item-" + filler;
  auto created = api_.post(orders, "k-1", body);
  ASSERT_TRUE(has_status(created, 201));
  const auto id = created.res.json().at("id").get<std::string>();
  EXPECT_FALSE(created.res.json().at("items")[0].contains("colour"));

  json cancel = {{"reason", "changed my mind"}, {"extra", "cancel-" + filler}};
  ASSERT_TRUE(has_status(api_.post(cancel_of(id), "c-1", cancel), 200));

  const auto stored = everything_stored();
  EXPECT_EQ(stored.find(filler), std::string::npos) << stored.size() << " bytes stored";
  EXPECT_EQ(request_of("k-1").size(), 0u);
  EXPECT_EQ(request_of("c-1").size(), 0u);

  // Replays and fingerprints still see the whole body, unknown fields included.
  auto replay = api_.post(cancel_of(id), "c-1", cancel);
  ASSERT_TRUE(has_status(replay, 200));
  EXPECT_TRUE(replayed_header_is(replay, "true"));
  cancel["extra"] = "something else";
  EXPECT_TRUE(is_problem(api_.post(cancel_of(id), "c-1", cancel), 422, "idempotency-key-mismatch"));
  auto again = api_.post(orders, "k-1", body);
  EXPECT_TRUE(replayed_header_is(again, "true"));
  EXPECT_EQ(again.res.body, created.res.body);
}

TEST_F(StoredRequest, AProcessingRecordKeepsOnlyWhatTheCompleterNeeds) {
  const auto id = api_.create_order("m-1", "k-create");
  api_.set_faults(only(on_pay("crash_during_processing", {{"times", 1}})));
  auto pay = payment_body();
  pay["extra"] = "pay-" + filler;
  EXPECT_FALSE(api_.post(payments_of(id), "p-1", pay).ok());

  const auto request = request_of("p-1");
  EXPECT_EQ(request.find(filler), std::string::npos) << request.size() << " bytes";
  ASSERT_NE(request.find("card_visa"), std::string::npos) << request.substr(0, 500);

  // The completer finishes it from what was kept; the record then keeps no request.
  api_.advance_clock(31);
  ASSERT_TRUE(has_status(api_.admin("POST", "/_mock/complete"), 200));
  auto replay = api_.post(payments_of(id), "p-1", pay);
  ASSERT_TRUE(has_status(replay, 201));
  EXPECT_TRUE(replayed_header_is(replay, "true"));
  EXPECT_EQ(request_of("p-1").size(), 0u);
  EXPECT_EQ(stat(api_, "provider_charges"), 1);
}

}  // namespace
}  // namespace idem::kit
