// An app's test file that says `using namespace idem;` beside GoogleTest: `testing::` must still
// name GoogleTest's namespace. The kit's namespace is idem::kit; when it was idem::testing,
// this file did not compile ("reference to 'testing' is ambiguous").
#include <gtest/gtest.h>

#include "idem/idem.hpp"
#include "idem/testing/fake_scheduler.hpp"
#include "idem/testing/fake_transport.hpp"

namespace app_code_with_using_namespace {  // the using-directive stays in here (unity batches)

using namespace idem;

class using_namespace_idem : public testing::Test {
 protected:
  kit::fake_reply answer = kit::reply(201, R"({"id":"ord_1"})");
};

TEST_F(using_namespace_idem, TestingIsGoogleTestsAndTheKitIsKit) {
  EXPECT_EQ(answer.result.response.status, 201);
  EXPECT_EQ(outcome_kind::succeeded, idem::outcome_kind::succeeded);
}

}  // namespace app_code_with_using_namespace
