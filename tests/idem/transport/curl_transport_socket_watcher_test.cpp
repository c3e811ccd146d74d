// The two ways the curl transport (src/transport/curl_transport.cpp) watches curl's sockets: one
// Asio socket each (socket_table, the portable way) and one epoll set for all (epoll_socket_set,
// Linux). Both must say the same things to curl: a descriptor is reported only while curl wants
// it, only for what curl wants, never after it was closed or handed back (even when its number is
// reused at once), and an idle watcher leaves the io_context free to return. Every test runs
// against both, on socket pairs (curl's own descriptors are borrowed the same way).

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <cstring>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "tests/idem/support/send_and_wait.hpp"
#include "transport/curl_socket_table.hpp"
#if defined(__linux__)
#include "transport/curl_epoll_socket_set.hpp"
#endif

namespace idem::detail {
namespace {

using test::run_until;

struct report {
  curl_socket_t fd;
  int events;
};

// A connected pair of stream sockets: `ours` is what the watcher watches, `peer` makes it ready.
struct socket_pair {
  socket_pair() {
    std::array<int, 2> fds{-1, -1};
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds.data()), 0);
    ours = fds[0];
    peer = fds[1];
  }
  ~socket_pair() {
    if (ours >= 0) ::close(ours);
    if (peer >= 0) ::close(peer);
  }
  socket_pair(const socket_pair&) = delete;
  socket_pair& operator=(const socket_pair&) = delete;

  void send_byte() const { ASSERT_EQ(::write(peer, "x", 1), 1); }

  int ours = -1;
  int peer = -1;
};

bool is_open(int fd) {
  return ::fcntl(fd, F_GETFD) != -1;
}

// A listening TCP socket on loopback: what an owned (opened by the watcher) socket connects to,
// as curl connects the sockets it asks the watcher for.
struct loopback_listener {
  loopback_listener() {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(fd, 4), 0);
    socklen_t len = sizeof address;
    EXPECT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &len), 0);
  }
  ~loopback_listener() { ::close(fd); }
  loopback_listener(const loopback_listener&) = delete;
  loopback_listener& operator=(const loopback_listener&) = delete;

  // Connects `client` (blocking, loopback: at once) and returns the accepted end.
  int connect(int client) const {
    EXPECT_EQ(::connect(client, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    return ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
  }

  int fd = -1;
  sockaddr_in address{};
};

curl_sockaddr ipv4_address() {
  curl_sockaddr address{};
  address.family = AF_INET;
  address.socktype = SOCK_STREAM;
  address.protocol = IPPROTO_TCP;
  address.addrlen = sizeof(sockaddr_in);
  return address;
}

template <class Watcher>
class socket_watcher_test : public ::testing::Test {
 protected:
  // Runs the io_context until it is out of work or `limit` reports arrived; true if it ran out
  // of work (an idle watcher must let it). The bound only turns a hang into a failure.
  bool run_until_idle() {
    io_.restart();
    io_.run_for(test::hang_limit);
    return io_.stopped();
  }

  // A socket the watcher opened, connected to `server` (as curl connects the sockets it asks
  // for): {ours, the server's end}; the server's end is -1 if that failed.
  std::pair<curl_socket_t, int> connect_owned(const loopback_listener& server) {
    const curl_socket_t fd = watcher_.open(ipv4_address());
    EXPECT_NE(fd, CURL_SOCKET_BAD);
    return {fd, fd == CURL_SOCKET_BAD ? -1 : server.connect(fd)};
  }

  // A connection curl used once and keeps in its cache: watched for reading, then let go of.
  std::pair<curl_socket_t, int> kept_connection(const loopback_listener& server) {
    auto conn = connect_owned(server);
    watcher_.want(conn.first, CURL_POLL_IN, owner_);
    watcher_.want(conn.first, CURL_POLL_REMOVE, nullptr);
    return conn;
  }

  // Blocks until `fd` is readable (the other end's data or its end has arrived); true if so.
  static bool readable_soon(curl_socket_t fd) {
    pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
    return ::poll(&p, 1, static_cast<int>(std::chrono::milliseconds(test::hang_limit).count())) ==
           1;
  }

  boost::asio::io_context io_;
  std::vector<report> reports_;
  std::function<void(curl_socket_t, int)> on_report_;      // runs after each report is recorded
  std::shared_ptr<int> owner_ = std::make_shared<int>(0);  // stands for the transport
  Watcher watcher_{io_.get_executor(), [this](curl_socket_t fd, int events) {
                     reports_.push_back({fd, events});
                     if (on_report_) on_report_(fd, events);
                   }};
};

#if defined(__linux__)
using watchers = ::testing::Types<socket_table, epoll_socket_set>;
#else
using watchers = ::testing::Types<socket_table>;
#endif
TYPED_TEST_SUITE(socket_watcher_test, watchers);

TYPED_TEST(socket_watcher_test, ReportsAReadableDescriptorOnceCurlWantsItAndNotBefore) {
  socket_pair pair;
  pair.send_byte();
  this->io_.poll();
  EXPECT_TRUE(this->reports_.empty());

  this->watcher_.want(pair.ours, CURL_POLL_IN, this->owner_);
  ASSERT_TRUE(run_until(this->io_, [&] { return !this->reports_.empty(); }));
  EXPECT_EQ(this->reports_.front().fd, pair.ours);
  EXPECT_EQ(this->reports_.front().events, CURL_CSELECT_IN);
}

TYPED_TEST(socket_watcher_test, ReportsOnlyWhatCurlWants) {
  socket_pair pair;  // writable at once, not readable
  this->watcher_.want(pair.ours, CURL_POLL_OUT, this->owner_);
  ASSERT_TRUE(run_until(this->io_, [&] { return !this->reports_.empty(); }));
  EXPECT_EQ(this->reports_.front().events, CURL_CSELECT_OUT);

  // curl now waits for the answer: writable still, but that is not reported any more.
  this->reports_.clear();
  this->watcher_.want(pair.ours, CURL_POLL_IN, this->owner_);
  this->io_.restart();
  this->io_.poll();
  EXPECT_TRUE(this->reports_.empty());
  pair.send_byte();
  ASSERT_TRUE(run_until(this->io_, [&] { return !this->reports_.empty(); }));
  EXPECT_EQ(this->reports_.front().events, CURL_CSELECT_IN);
}

TYPED_TEST(socket_watcher_test, ADescriptorCurlStillWantsIsReportedAgainUntilCurlActs) {
  socket_pair pair;
  pair.send_byte();
  this->watcher_.want(pair.ours, CURL_POLL_IN, this->owner_);
  // Nothing reads the byte: as with poll(), the descriptor stays ready and is reported again.
  ASSERT_TRUE(run_until(this->io_, [&] { return this->reports_.size() >= 3; }));
  for (const report& r : this->reports_)
    EXPECT_EQ(r.fd, pair.ours);
}

TYPED_TEST(socket_watcher_test, AHangUpIsReportedAsReadable) {
  socket_pair pair;
  this->watcher_.want(pair.ours, CURL_POLL_IN, this->owner_);
  ::close(pair.peer);
  pair.peer = -1;
  ASSERT_TRUE(run_until(this->io_, [&] { return !this->reports_.empty(); }));
  EXPECT_NE(this->reports_.front().events & CURL_CSELECT_IN, 0);  // the read finds the end
}

TYPED_TEST(socket_watcher_test, NothingIsReportedOnceCurlSaysRemoveAndTheLoopIsLeftFree) {
  socket_pair pair;
  pair.send_byte();
  this->watcher_.want(pair.ours, CURL_POLL_IN, this->owner_);
  this->watcher_.want(pair.ours, CURL_POLL_REMOVE, nullptr);
  EXPECT_TRUE(this->run_until_idle()) << "an unwatched descriptor kept the io_context busy";
  EXPECT_TRUE(this->reports_.empty());
  // Borrowed: let go of, never closed (curl closes its own).
  EXPECT_EQ(this->watcher_.size(), 0U);
  EXPECT_TRUE(is_open(pair.ours));
}

TYPED_TEST(socket_watcher_test, WantedAgainAfterRemoveIsReportedAgain) {
  socket_pair pair;
  pair.send_byte();
  this->watcher_.want(pair.ours, CURL_POLL_IN, this->owner_);
  this->watcher_.want(pair.ours, CURL_POLL_REMOVE, nullptr);
  this->watcher_.want(pair.ours, CURL_POLL_IN, this->owner_);  // before the cancelled wait ran
  ASSERT_TRUE(run_until(this->io_, [&] { return !this->reports_.empty(); }));
  EXPECT_EQ(this->reports_.front().fd, pair.ours);
}

TYPED_TEST(socket_watcher_test, ASocketItOpenedStaysOpenWhileUnwatchedAndIsClosedOnlyByClose) {
  const curl_socket_t fd = this->watcher_.open(ipv4_address());
  ASSERT_NE(fd, CURL_SOCKET_BAD);
  EXPECT_EQ(this->watcher_.size(), 1U);
  this->watcher_.want(fd, CURL_POLL_OUT, this->owner_);
  this->watcher_.want(fd, CURL_POLL_REMOVE, nullptr);  // an idle keep-alive connection
  EXPECT_TRUE(is_open(fd));
  EXPECT_EQ(this->watcher_.size(), 1U);
  EXPECT_TRUE(this->run_until_idle());

  EXPECT_EQ(this->watcher_.close(fd), 0);
  EXPECT_EQ(this->watcher_.size(), 0U);
  EXPECT_FALSE(is_open(fd));
}

TYPED_TEST(socket_watcher_test, AConnectionThatHangsUpWhileUnwatchedIsReportedOnlyWhenWanted) {
  // A kept connection waits in curl's cache, unwatched, while other transfers run; the server
  // closes it there. Nothing is said of it until curl wants it again, and then its end is.
  loopback_listener server;
  const auto [kept, accepted] = this->kept_connection(server);  // its transfer ended
  ASSERT_GE(accepted, 0);
  socket_pair busy;  // another transfer, watched throughout
  this->watcher_.want(busy.ours, CURL_POLL_IN, this->owner_);
  ::shutdown(accepted, SHUT_RDWR);
  ::close(accepted);
  busy.send_byte();
  ASSERT_TRUE(run_until(this->io_, [&] { return !this->reports_.empty(); }));
  char byte = 0;
  EXPECT_EQ(::read(busy.ours, &byte, 1), 1);
  this->watcher_.want(busy.ours, CURL_POLL_REMOVE, nullptr);
  EXPECT_TRUE(this->run_until_idle()) << "the closed, unwatched connection kept the loop busy";
  for (const report& r : this->reports_)
    EXPECT_NE(r.fd, kept) << "reported while unwatched";

  const std::size_t before = this->reports_.size();
  this->watcher_.want(kept, CURL_POLL_IN, this->owner_);  // curl takes it from its cache
  ASSERT_TRUE(run_until(this->io_, [&] { return this->reports_.size() > before; }));
  EXPECT_EQ(this->reports_[before].fd, kept);
  EXPECT_NE(this->reports_[before].events & CURL_CSELECT_IN, 0);  // the read finds the end
  EXPECT_EQ(this->watcher_.close(kept), 0);
}

TYPED_TEST(socket_watcher_test, AConnectionThatHangsUpWhileTheWatcherIsIdleIsReportedWhenWanted) {
  // Nothing is watched (the watcher's own wait is over) while the server closes a kept
  // connection, and the loop goes on running other work meanwhile, so the reactor sees the
  // readiness with nobody waiting for it. When curl wants the connection again, for what it
  // was watched for before, its end is still reported.
  loopback_listener server;
  const auto [kept, accepted] = this->kept_connection(server);
  ASSERT_GE(accepted, 0);
  EXPECT_TRUE(this->run_until_idle());
  ::shutdown(accepted, SHUT_RDWR);
  ::close(accepted);
  ASSERT_TRUE(this->readable_soon(kept));  // the end arrived
  // Other work on the loop: its reactor runs, finds the watcher's descriptor ready and nobody
  // waiting on it.
  bool other_ran = false;
  boost::asio::post(this->io_, [&] { other_ran = true; });
  this->io_.restart();
  this->io_.poll();
  this->io_.poll();
  ASSERT_TRUE(other_ran);
  EXPECT_TRUE(this->reports_.empty());

  this->watcher_.want(kept, CURL_POLL_IN, this->owner_);  // curl takes it from its cache
  ASSERT_TRUE(run_until(this->io_, [&] { return !this->reports_.empty(); }))
      << "the hang-up seen while idle was never reported";
  EXPECT_EQ(this->reports_.front().fd, kept);
  EXPECT_NE(this->reports_.front().events & CURL_CSELECT_IN, 0);
  this->watcher_.want(kept, CURL_POLL_REMOVE, nullptr);
  EXPECT_EQ(this->watcher_.close(kept), 0);
}

TYPED_TEST(socket_watcher_test, AConnectionClosedInCurlsCacheDoesNotKeepTheLoopTurning) {
  // Another transfer waits (nothing ready) while a kept, unwatched connection is closed by the
  // server: once that has been seen, a round of the loop must find nothing to do.
  loopback_listener server;
  const auto [kept, accepted] = this->kept_connection(server);
  ASSERT_GE(accepted, 0);
  socket_pair waiting;
  this->watcher_.want(waiting.ours, CURL_POLL_IN, this->owner_);
  ::close(accepted);
  ASSERT_TRUE(this->readable_soon(kept));  // the end arrived
  this->io_.restart();
  std::size_t rounds = 0;
  while (this->io_.poll_one() != 0 && ++rounds < 1000) {
  }
  EXPECT_LT(rounds, 1000U) << "every round found the closed connection ready again";
  EXPECT_TRUE(this->reports_.empty());
  this->watcher_.want(waiting.ours, CURL_POLL_REMOVE, nullptr);
  EXPECT_EQ(this->watcher_.close(kept), 0);
}

TYPED_TEST(socket_watcher_test, AKeptConnectionIsReportedWhenReusedEachTime) {
  // Request after request on one connection: wanted, answered, let go of, wanted again.
  loopback_listener server;
  const auto [conn, accepted] = this->connect_owned(server);
  ASSERT_GE(accepted, 0);
  for (int round = 0; round < 5; ++round) {
    const std::size_t before = this->reports_.size();
    this->watcher_.want(conn, CURL_POLL_IN, this->owner_);
    ASSERT_EQ(::write(accepted, "x", 1), 1);
    ASSERT_TRUE(run_until(this->io_, [&] { return this->reports_.size() > before; }));
    EXPECT_EQ(this->reports_[before].fd, conn);
    char byte = 0;
    EXPECT_EQ(::read(conn, &byte, 1), 1);
    this->watcher_.want(conn, CURL_POLL_REMOVE, nullptr);
    EXPECT_TRUE(this->run_until_idle()) << "round " << round;
  }
  EXPECT_EQ(this->watcher_.size(), 1U);
  ::close(accepted);
  EXPECT_EQ(this->watcher_.close(conn), 0);
}

TYPED_TEST(socket_watcher_test, OnlyInternetStreamSocketsAreOpened) {
  curl_sockaddr address = ipv4_address();
  address.family = AF_UNIX;
  EXPECT_EQ(this->watcher_.open(address), CURL_SOCKET_BAD);
  EXPECT_EQ(this->watcher_.size(), 0U);
}

TYPED_TEST(socket_watcher_test, ClearClosesItsOwnSocketsLetsGoOfBorrowedOnesAndReportsNothing) {
  socket_pair borrowed;
  borrowed.send_byte();
  const curl_socket_t owned = this->watcher_.open(ipv4_address());
  ASSERT_NE(owned, CURL_SOCKET_BAD);
  this->watcher_.want(borrowed.ours, CURL_POLL_IN, this->owner_);
  this->watcher_.want(owned, CURL_POLL_OUT, this->owner_);

  this->watcher_.clear();
  EXPECT_EQ(this->watcher_.size(), 0U);
  EXPECT_FALSE(is_open(owned));
  EXPECT_TRUE(is_open(borrowed.ours));
  EXPECT_TRUE(this->run_until_idle());
  EXPECT_TRUE(this->reports_.empty());
}

TYPED_TEST(socket_watcher_test, AClosedDescriptorIsNotReportedEvenWhenItsNumberIsReusedAtOnce) {
  // Two ready descriptors; whichever is reported first closes the other (as curl closes a
  // connection while it handles another) and a new, idle one takes the freed number at once.
  // The readiness of the closed one, perhaps read already, must not reach the new one.
  socket_pair a;
  socket_pair b;
  a.send_byte();
  b.send_byte();
  int replacement = -1;
  socket_pair* replacement_pair = nullptr;
  std::unique_ptr<socket_pair> fresh;
  this->on_report_ = [&](curl_socket_t fd, int) {
    if (fresh) return;
    // Answered: drained and no longer wanted, as curl leaves a connection it is done with.
    char byte = 0;
    EXPECT_EQ(::read(fd, &byte, 1), 1);
    this->watcher_.want(fd, CURL_POLL_REMOVE, nullptr);
    socket_pair& other = fd == a.ours ? b : a;
    const int freed = other.ours;
    EXPECT_EQ(this->watcher_.close(freed), 0);  // borrowed: closed by curl, through the watcher
    other.ours = -1;
    fresh = std::make_unique<socket_pair>();
    replacement = fresh->ours;
    replacement_pair = fresh.get();
    ASSERT_EQ(replacement, freed) << "the kernel did not reuse the number; test set-up only";
    this->watcher_.want(replacement, CURL_POLL_IN, this->owner_);
  };
  this->watcher_.want(a.ours, CURL_POLL_IN, this->owner_);
  this->watcher_.want(b.ours, CURL_POLL_IN, this->owner_);
  ASSERT_TRUE(run_until(this->io_, [&] { return !this->reports_.empty(); }));
  // Let every report already on its way arrive, then make the new descriptor ready.
  this->io_.restart();
  this->io_.poll();
  for (const report& r : this->reports_) {
    if constexpr (std::is_same_v<TypeParam, socket_table>) {
      // Asio's epoll reactor runs a descriptor's readiness after the reactor round that saw it;
      // if the descriptor was released meanwhile, its state object, reused from a pool for the
      // new socket, may carry the old readiness over once. A spurious "readable", never an
      // error: curl reads, finds nothing and waits on (as after any spurious poll() wake-up).
      if (r.fd == replacement) {
        EXPECT_EQ(r.events, CURL_CSELECT_IN) << "a stale error";
      }
    } else {
      EXPECT_NE(r.fd, replacement) << "a stale report";
    }
  }
  ASSERT_NE(replacement_pair, nullptr);
  replacement_pair->send_byte();
  const std::size_t before = this->reports_.size();
  ASSERT_TRUE(run_until(this->io_, [&] {
    for (std::size_t i = before; i < this->reports_.size(); ++i) {
      if (this->reports_[i].fd == replacement) return true;
    }
    return false;
  }));
}

TYPED_TEST(socket_watcher_test, ManyReadyDescriptorsAreAllReported) {
  // More than one round of the epoll set's batch (64).
  constexpr int count = 150;
  std::vector<std::unique_ptr<socket_pair>> pairs;
  for (int i = 0; i < count; ++i) {
    pairs.push_back(std::make_unique<socket_pair>());
    pairs.back()->send_byte();
    this->watcher_.want(pairs.back()->ours, CURL_POLL_IN, this->owner_);
  }
  std::vector<bool> seen(static_cast<std::size_t>(count), false);
  int distinct = 0;
  this->on_report_ = [&](curl_socket_t fd, int) {
    for (int i = 0; i < count; ++i) {
      if (pairs[static_cast<std::size_t>(i)]->ours != fd) continue;
      if (!seen[static_cast<std::size_t>(i)]) ++distinct;
      seen[static_cast<std::size_t>(i)] = true;
      // Drained and no longer wanted, as curl does once it has its answer.
      char byte = 0;
      EXPECT_EQ(::read(fd, &byte, 1), 1);
      this->watcher_.want(fd, CURL_POLL_REMOVE, nullptr);
    }
  };
  ASSERT_TRUE(run_until(this->io_, [&] { return distinct == count; }));
  EXPECT_TRUE(this->run_until_idle());
  EXPECT_EQ(static_cast<int>(this->reports_.size()), count);
}

#if defined(__linux__)
TEST(EpollSocketSet, AKeptConnectionReusedToReadCostsTheKernelNothingYetIsReportedEachTime) {
  // Request after request on one connection, as curl drives a kept one: only the first time it
  // is watched does the kernel's set change; reusing it to read the next answer does not (it
  // was an EPOLL_CTL_MOD per request), and every answer is still reported. Wanting it for
  // something else (writing) does change the set, and is reported too.
  boost::asio::io_context io;
  std::vector<report> reports;
  epoll_socket_set set(io.get_executor(), [&](curl_socket_t fd, int events) {
    reports.push_back({fd, events});
  });
  const auto owner = std::make_shared<int>(0);
  loopback_listener server;
  const curl_socket_t conn = set.open(ipv4_address());
  ASSERT_NE(conn, CURL_SOCKET_BAD);
  const int accepted = server.connect(conn);
  ASSERT_GE(accepted, 0);
  for (int round = 0; round < 5; ++round) {
    const std::size_t before = reports.size();
    set.want(conn, CURL_POLL_IN, owner);
    ASSERT_EQ(::write(accepted, "x", 1), 1);
    ASSERT_TRUE(run_until(io, [&] { return reports.size() > before; })) << "round " << round;
    EXPECT_EQ(reports[before].fd, conn);
    EXPECT_NE(reports[before].events & CURL_CSELECT_IN, 0);
    char byte = 0;
    EXPECT_EQ(::read(conn, &byte, 1), 1);
    set.want(conn, CURL_POLL_REMOVE, nullptr);
    io.restart();
    io.run_for(test::hang_limit);
    EXPECT_TRUE(io.stopped()) << "round " << round;
  }
  EXPECT_EQ(set.set_changes(), 1U);

  const std::size_t before = reports.size();
  set.want(conn, CURL_POLL_OUT, owner);
  ASSERT_TRUE(run_until(io, [&] { return reports.size() > before; }));
  EXPECT_EQ(reports[before].fd, conn);
  EXPECT_NE(reports[before].events & CURL_CSELECT_OUT, 0);
  EXPECT_EQ(set.set_changes(), 2U);
  set.want(conn, CURL_POLL_REMOVE, nullptr);
  ::close(accepted);
  EXPECT_EQ(set.close(conn), 0);
}
#endif

}  // namespace
}  // namespace idem::detail
