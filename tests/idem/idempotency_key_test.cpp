#include "idem/idempotency_key.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <set>

namespace {

const std::regex uuid_v4{"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"};
const std::regex uuid_v7{"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"};

TEST(IdempotencyKey, MintsRfc9562UuidV4ByDefault) {
  auto key = idem::idempotency_key::mint();
  EXPECT_TRUE(std::regex_match(key.str(), uuid_v4)) << key.str();
}

TEST(IdempotencyKey, EveryMintIsANewKey) {
  std::set<std::string> seen;
  for (int i = 0; i < 10000; ++i)
    seen.insert(idem::idempotency_key::mint().str());
  EXPECT_EQ(seen.size(), 10000u);
}

TEST(IdempotencyKey, UuidV7CarriesTheMillisecondTimestamp) {
  using namespace std::chrono;
  system_clock::time_point t{milliseconds{0x0123456789ABLL}};
  auto key = idem::idempotency_key::mint_v7(t);
  EXPECT_TRUE(std::regex_match(key.str(), uuid_v7)) << key.str();
  EXPECT_EQ(key.str().substr(0, 13), "01234567-89ab");
}

TEST(IdempotencyKey, UuidV7KeysWithTheSameTimestampStillDiffer) {
  auto now = std::chrono::system_clock::now();
  EXPECT_NE(idem::idempotency_key::mint_v7(now), idem::idempotency_key::mint_v7(now));
}

TEST(IdempotencyKey, UuidV7IsSelectableThroughMint) {
  auto key = idem::idempotency_key::mint(idem::key_format::uuid_v7);
  EXPECT_TRUE(std::regex_match(key.str(), uuid_v7)) << key.str();
}

TEST(IdempotencyKey, FromStringAcceptsWhatTheWireAccepts) {
  EXPECT_TRUE(idem::idempotency_key::from_string("abc"));
  EXPECT_TRUE(idem::idempotency_key::from_string(std::string(255, 'k')));
  EXPECT_FALSE(idem::idempotency_key::from_string(""));
  EXPECT_FALSE(idem::idempotency_key::from_string(std::string(256, 'k')));
  EXPECT_FALSE(idem::idempotency_key::from_string("has space"));
  EXPECT_FALSE(idem::idempotency_key::from_string("tab\there"));
  EXPECT_EQ(idem::idempotency_key::from_string("abc")->str(), "abc");
}

}  // namespace
