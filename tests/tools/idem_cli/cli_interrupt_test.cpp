// idem-cli's Ctrl-C handling (tools/idem_cli/interrupt_signals.cpp): the first SIGINT or SIGTERM
// reaches the handler on the io_context, and the default action is back for the next one.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <csignal>

#include "idem_cli/interrupt_signals.hpp"

namespace idem::cli {
namespace {

void (*current_action(int signal_number))(int) {
  struct sigaction now {};
  ::sigaction(signal_number, nullptr, &now);
  return now.sa_handler;
}

TEST(CliInterrupt, FirstSignalReachesTheHandlerOnceAndRestoresTheDefault) {
  boost::asio::io_context io;
  int calls = 0;
  int received = 0;
  interrupt_signals signals(io, [&](int n) {
    ++calls;
    received = n;
  });
  EXPECT_NE(current_action(SIGINT), SIG_DFL);  // caught while the command runs
  ASSERT_EQ(std::raise(SIGINT), 0);
  io.run();  // the handler is the only work: run returns once it ran
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(received, SIGINT);
  EXPECT_EQ(current_action(SIGINT), SIG_DFL);  // a second Ctrl-C ends the process at once
  EXPECT_EQ(current_action(SIGTERM), SIG_DFL);
}

TEST(CliInterrupt, SigtermIsAnInterruptToo) {
  boost::asio::io_context io;
  int received = 0;
  interrupt_signals signals(io, [&](int n) { received = n; });
  ASSERT_EQ(std::raise(SIGTERM), 0);
  io.run();
  EXPECT_EQ(received, SIGTERM);
}

TEST(CliInterrupt, EndingWithoutASignalNeverCallsTheHandlerAndRestoresTheDefault) {
  boost::asio::io_context io;
  int calls = 0;
  {
    interrupt_signals signals(io, [&](int) { ++calls; });
  }
  io.run();
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(current_action(SIGINT), SIG_DFL);
}

}  // namespace
}  // namespace idem::cli
