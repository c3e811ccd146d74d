// The transport's pool of easy handles (src/transport/curl_handle_pool.hpp): handles come back to
// be reused, up to a bound the transport moves with its load.

#include "transport/curl_handle_pool.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace idem::detail {
namespace {

std::vector<CURL*> take_n(curl_handle_pool& pool, std::size_t n) {
  std::vector<CURL*> out;
  for (std::size_t k = 0; k < n; ++k) {
    auto h = pool.take();
    EXPECT_NE(h.easy, nullptr);
    out.push_back(h.easy);
  }
  return out;
}

void give_all_back(curl_handle_pool& pool, const std::vector<CURL*>& handles) {
  for (CURL* easy : handles)
    pool.give_back(easy);
}

TEST(CurlHandlePool, KeepsUpToItsBoundAndReusesWhatItKept) {
  curl_handle_pool pool(2);
  give_all_back(pool, take_n(pool, 3));
  EXPECT_EQ(pool.made(), 3u);
  EXPECT_EQ(pool.kept(), 2u);  // the third was freed
  auto reused = pool.take();
  EXPECT_FALSE(reused.fresh);
  EXPECT_EQ(pool.made(), 3u);
  pool.give_back(reused.easy);
}

TEST(CurlHandlePool, ARaisedBoundKeepsAWholeWaveForTheNext) {
  // A load of 50 in flight: the transport raises the bound to its peak, so the next 50
  // requests reuse the first 50's handles instead of making new ones.
  curl_handle_pool pool(2);
  pool.set_max_kept(50);
  give_all_back(pool, take_n(pool, 50));
  EXPECT_EQ(pool.kept(), 50u);
  give_all_back(pool, take_n(pool, 50));
  EXPECT_EQ(pool.made(), 50u);
}

TEST(CurlHandlePool, ALoweredBoundFreesWhatIsKeptBeyondItAtOnce) {
  // The load is over (the transport is idle): a phone at rest keeps only a few handles.
  curl_handle_pool pool(50);
  give_all_back(pool, take_n(pool, 50));
  pool.set_max_kept(4);
  EXPECT_EQ(pool.kept(), 4u);
  pool.give_back(pool.take().easy);
  EXPECT_EQ(pool.kept(), 4u);
  auto extra = take_n(pool, 6);  // 4 kept + 2 new
  EXPECT_EQ(pool.made(), 52u);
  give_all_back(pool, extra);
  EXPECT_EQ(pool.kept(), 4u);
}

}  // namespace
}  // namespace idem::detail
