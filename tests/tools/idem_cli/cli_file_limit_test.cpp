// idem-cli load makes room in the open-file limit for a socket per intent in flight.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include "idem_cli/load/file_limit.hpp"

namespace idem::cli {
namespace {

// Lowers the soft limit for one test and puts it back (the hard limit is never touched: an
// unprivileged process could not raise it again).
class CliFileLimit : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &original_), 0); }
  void TearDown() override { ::setrlimit(RLIMIT_NOFILE, &original_); }

  static rlimit current() {
    rlimit r{};
    ::getrlimit(RLIMIT_NOFILE, &r);
    return r;
  }
  void lower_soft_limit_to(rlim_t n) {
    rlimit r = original_;
    r.rlim_cur = n;
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &r), 0);
  }

  rlimit original_{};
};

TEST_F(CliFileLimit, RaisesALowSoftLimitToFitTheConnections) {
  if (original_.rlim_max != RLIM_INFINITY && original_.rlim_max < 1'000 + spare_files) {
    GTEST_SKIP() << "the hard limit (" << original_.rlim_max << ") leaves no room to raise";
  }
  lower_soft_limit_to(256);
  EXPECT_EQ(make_room_for_connections(1'000), "");
  EXPECT_GE(current().rlim_cur, 1'000 + spare_files);
}

TEST_F(CliFileLimit, NeverLowersALimitThatIsHighEnough) {
  lower_soft_limit_to(512);
  EXPECT_EQ(make_room_for_connections(10), "");
  EXPECT_EQ(current().rlim_cur, 512u);
}

TEST_F(CliFileLimit, BeyondTheHardLimitSaysWhyWithTheFigures) {
  if (original_.rlim_max == RLIM_INFINITY) GTEST_SKIP() << "no hard limit to exceed";
  const auto too_many = static_cast<std::size_t>(original_.rlim_max);
  const std::string why = make_room_for_connections(too_many);
  EXPECT_NE(why.find("--concurrency " + std::to_string(too_many)), std::string::npos) << why;
  EXPECT_NE(why.find("ulimit -Hn"), std::string::npos) << why;
  EXPECT_EQ(current().rlim_cur, original_.rlim_cur);  // left as it was
}

}  // namespace
}  // namespace idem::cli
