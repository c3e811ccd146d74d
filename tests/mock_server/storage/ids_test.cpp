#include "mock_server/storage/ids.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace idem::mock {
namespace {

TEST(RandomId, IsPrefixUnderscoreAnd24LowerCaseHexCharacters) {
  const auto id = random_id("ord");
  ASSERT_EQ(id.size(), 3u + 1u + 24u);
  EXPECT_EQ(id.substr(0, 4), "ord_");
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef", 4), std::string::npos) << id;
}

TEST(RandomId, KeepsAnyPrefixVerbatim) {
  EXPECT_EQ(random_id("req").rfind("req_", 0), 0u);
  EXPECT_EQ(random_id("").size(), 25u);
}

TEST(RandomId, ThousandIdsAreAllDistinct) {
  std::set<std::string> ids;
  for (int i = 0; i < 1000; ++i)
    ids.insert(random_id("pay"));
  EXPECT_EQ(ids.size(), 1000u);
}

TEST(RandomId, EveryHexPositionVaries) {
  // A constant or badly seeded source would leave some position fixed across many ids.
  const std::string first = random_id("x");
  std::vector<bool> varied(first.size(), false);
  for (int i = 0; i < 200; ++i) {
    const auto id = random_id("x");
    for (std::size_t p = 2; p < id.size(); ++p)
      varied[p] = varied[p] || id[p] != first[p];
  }
  for (std::size_t p = 2; p < first.size(); ++p)
    EXPECT_TRUE(varied[p]) << "position " << p;
}

}  // namespace
}  // namespace idem::mock
