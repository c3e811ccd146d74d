// A verdict is a proof, over real sockets (contract section 8): the real client and transport
// against a loopback backend whose first create executes and loses its answer (the connection
// closes under it), and whose retry meets a refusal that says nothing about that execution: a
// 401 while a token refreshes, a gateway's 403 or 404 page, a 400, 413 or 422. The order exists
// (the backend's lookup shows it): the client must find it, never report it rejected; with the
// lookup showing nothing, it ends unresolved with its key, never rejected.

#include <gtest/gtest.h>

#include <atomic>

#include "tests/idem/support/live_client.hpp"
#include "tests/support/servers/recording_listener.hpp"

namespace idem::test::live {
namespace {

// The backend: the first POST closes its connection unanswered (after it "executed"), every
// later one is refused with `status`; the lookup answers with the order when `holds_order`.
class refusing_gateway {
 public:
  refusing_gateway(int status, bool holds_order)
      : listener_(
            [status, holds_order](const std::string& head) {
              if (head.starts_with("GET ")) {
                nlohmann::json data = nlohmann::json::array();
                if (holds_order) {
                  data.push_back({{"id", "ord_1"},
                                  {"merchant_order_id", "m-proof"},
                                  {"customer_id", "c-1"},
                                  {"currency", "EUR"},
                                  {"amount_minor", 1500},
                                  {"status", "CREATED"}});
                }
                return kit::http_answer(200, nlohmann::json{{"data", data}}.dump());
              }
              return kit::http_answer(status, "<html>refused by the gateway</html>");
            },
            {.close_unanswered = [this](std::size_t, const std::string& head) {
              return head.starts_with("POST ") && posts_.fetch_add(1) == 0;
            }}) {}

  [[nodiscard]] std::uint16_t port() const { return listener_.port(); }
  [[nodiscard]] std::size_t posts() const { return listener_.heads_starting("POST ").size(); }

 private:
  std::atomic<int> posts_{0};
  kit::recording_listener listener_;
};

class LiveVerdict : public ::testing::TestWithParam<int> {};

TEST_P(LiveVerdict, ARefusalAfterALostAnswerIsSettledByTheLookupWhichFindsTheOrder) {
  refusing_gateway backend(GetParam(), /*holds_order=*/true);
  const auto o = submit_live(live_options(backend.port()), orders::create(order_of("m-proof")));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded) << to_string(o.kind()) << " " << o.status();
  EXPECT_TRUE(o.recovered_by_lookup());
  EXPECT_EQ(backend.posts(), 2u) << "the refusal must stop the writes";
}

TEST_P(LiveVerdict, ARefusalAfterALostAnswerIsNeverRejectedWhenTheLookupFindsNothing) {
  refusing_gateway backend(GetParam(), /*holds_order=*/false);
  const auto o = submit_live(live_options(backend.port()), orders::create(order_of("m-proof")));
  EXPECT_EQ(o.kind(), outcome_kind::unresolved) << to_string(o.kind());
  EXPECT_EQ(o.status(), GetParam());
  EXPECT_EQ(backend.posts(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Refusals, LiveVerdict, ::testing::Values(400, 401, 403, 404, 413, 422),
                         [](const auto& info) { return "s" + std::to_string(info.param); });

}  // namespace
}  // namespace idem::test::live
