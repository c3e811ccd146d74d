#include "idem/idempotency_key.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <regex>
#include <set>
#include <thread>
#include <vector>

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

TEST(IdempotencyKey, AForkedChildNeverMintsItsParentsNextKeys) {
  (void)idem::idempotency_key::mint();  // random bytes drawn and kept for the next keys
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  ASSERT_NE(pid, -1);
  if (pid == 0) {
    std::string keys;
    for (int i = 0; i < 8; ++i)
      keys += idem::idempotency_key::mint().str();
    const bool ok = write(fds[1], keys.data(), keys.size()) == static_cast<ssize_t>(keys.size());
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  std::string child(8 * 36, '\0');
  std::size_t got = 0;
  while (got < child.size()) {
    const ssize_t n = read(fds[0], child.data() + got, child.size() - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_EQ(got, child.size());
  std::set<std::string> seen;
  for (int i = 0; i < 8; ++i) {
    seen.insert(child.substr(static_cast<std::size_t>(i) * 36, 36));
    seen.insert(idem::idempotency_key::mint().str());
  }
  EXPECT_EQ(seen.size(), 16u) << "parent and child minted the same key";
}

TEST(IdempotencyKey, ThreadsNeverMintTheSameKey) {
  std::vector<std::vector<std::string>> minted(4);
  std::vector<std::thread> threads;
  for (auto& out : minted)
    threads.emplace_back([&out] {
      for (int i = 0; i < 2000; ++i)
        out.push_back(idem::idempotency_key::mint().str());
    });
  for (auto& t : threads)
    t.join();
  std::set<std::string> seen;
  for (const auto& out : minted)
    seen.insert(out.begin(), out.end());
  EXPECT_EQ(seen.size(), 8000u);
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
