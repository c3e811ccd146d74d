// The executor the client's transfer handlers name (src/util/strand_ref.hpp): what it runs, runs on
// the client's strand; dispatch() from the strand runs at once, post() never does (require
// blocking.never picks the posting form); and a type-erased handler's executor still says
// which strand it is, as the transport asks. post_on() (src/util/posting_strand.hpp), which the
// client and the transport use to queue onto that strand, runs on it, in order, never at once.

#include "util/strand_ref.hpp"

#include <gtest/gtest.h>

#include <boost/asio/any_completion_executor.hpp>
#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <vector>

namespace idem::detail {
namespace {

namespace asio = boost::asio;

class StrandRef : public ::testing::Test {
 protected:
  asio::io_context io_;
  io_strand strand_ = asio::make_strand(asio::any_io_executor(io_.get_executor()));
  io_strand posting_ = posting_strand(strand_);
  strand_ref ref_{strand_, posting_};
};

TEST_F(StrandRef, WhatItRunsRunsOnTheStrand) {
  bool on_strand = false;
  asio::post(ref_, [&] { on_strand = strand_.running_in_this_thread(); });
  bool dispatched_on_strand = false;
  asio::dispatch(ref_, [&] { dispatched_on_strand = strand_.running_in_this_thread(); });
  io_.run();
  EXPECT_TRUE(on_strand);
  EXPECT_TRUE(dispatched_on_strand);
}

TEST_F(StrandRef, FromTheStrandDispatchRunsAtOncePostNever) {
  std::vector<int> order;
  asio::post(strand_, [&] {
    asio::post(ref_, [&] { order.push_back(3); });
    asio::dispatch(ref_, [&] { order.push_back(1); });
    order.push_back(2);
  });
  io_.run();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST_F(StrandRef, NeverBlockingIsTheRequiredFormOnly) {
  namespace ex = asio::execution;
  EXPECT_EQ(asio::query(ref_, ex::blocking), ex::blocking.possibly);
  const strand_ref never = asio::require(ref_, ex::blocking.never);
  EXPECT_EQ(asio::query(never, ex::blocking), ex::blocking.never);
  EXPECT_EQ(never.strand(), strand_);  // the same strand, as strands compare
  EXPECT_FALSE(never == ref_);
  EXPECT_TRUE(strand_ref(strand_, posting_) == ref_);
  EXPECT_EQ(&asio::query(ref_, ex::context), &static_cast<asio::execution_context&>(io_));
}

// What curl_transport::impl::post_result relies on to queue a result straight onto its strand.
TEST_F(StrandRef, ATypeErasedHandlerStillSaysWhichStrandItIsOn) {
  struct handler {
    const strand_ref* ref;
    using executor_type = strand_ref;
    [[nodiscard]] executor_type get_executor() const noexcept { return *ref; }
    void operator()(int) const {}
  };
  asio::any_completion_handler<void(int)> erased(handler{&ref_});
  const asio::any_completion_executor ex = asio::get_associated_executor(erased);
  const auto* target = ex.target<strand_ref>();
  ASSERT_NE(target, nullptr);
  EXPECT_EQ(target->strand(), posting_);
  io_strand other = asio::make_strand(asio::any_io_executor(io_.get_executor()));
  EXPECT_FALSE(target->strand() == other);
}

TEST_F(StrandRef, PostOnRunsOnTheStrandInOrderAndNeverAtOnce) {
  std::vector<int> order;
  bool on_strand = true;
  asio::post(strand_, [&] {
    post_on(posting_, [&] {
      on_strand = on_strand && strand_.running_in_this_thread();
      order.push_back(3);
    });
    asio::post(strand_, [&] { order.push_back(4); });
    post_on(posting_, [&] {
      on_strand = on_strand && strand_.running_in_this_thread();
      order.push_back(5);
    });
    order.push_back(1);
  });
  // From outside the strand too: queued behind what the strand already holds.
  post_on(posting_, [&] {
    on_strand = on_strand && strand_.running_in_this_thread();
    order.push_back(2);
  });
  io_.run();
  EXPECT_TRUE(on_strand);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4, 5}));
}

TEST_F(StrandRef, PostOnKeepsTheContextRunningUntilItsFunctionHasRun) {
  // Nothing else holds work: run() returns only once the queued function has run.
  int runs = 0;
  post_on(posting_, [&] { post_on(posting_, [&] { ++runs; }); });
  EXPECT_GT(io_.run(), 0U);
  EXPECT_EQ(runs, 1);
}

}  // namespace
}  // namespace idem::detail
