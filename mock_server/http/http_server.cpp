// The front end's listener (http_server.hpp): the accept loop, the registry of open connections
// with its cap, and the graceful stop. One connection's work is in http_connection.cpp.
#include "mock_server/http/http_server.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <exception>
#include <filesystem>
#include <limits>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "mock_server/http/http_connection.hpp"
#include "mock_server/http/http_wire.hpp"

namespace idem::mock {

namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;
using asio::awaitable;

// How long the accept loop rests after running out of descriptors, so that it does not spin
// while the condition lasts (connections wait in the listen backlog meanwhile).
constexpr auto accept_retry_pause = 100ms;

// Connections being refused at once (answered 503 or served on a control slot): each holds a
// descriptor for at most a lingering close.
constexpr std::size_t max_refusing = 64;
// Descriptors the server keeps for itself besides its connections: the database and its WAL
// files, the lock, the listener, the spare one below, stdio, and some to spare.
constexpr std::size_t reserved_descriptors = 32;
// A fresh connection that has sent nothing for this long may lose its slot to a new one.
constexpr auto fresh_idle_evictable = 1s;
// At most one line about running out of descriptors per this long (with a count).
constexpr auto exhaustion_log_interval = 10s;

bool is_resource_exhaustion(const boost::system::error_code& ec) {
  return ec == asio::error::no_descriptors ||                         // EMFILE
         ec == boost::system::errc::too_many_files_open_in_system ||  // ENFILE
         ec == asio::error::no_buffer_space ||                        // ENOBUFS
         ec == asio::error::no_memory;                                // ENOMEM
}

using wire::log_error;
using wire::session;
using wire::use_nothrow;

}  // namespace

struct http_server::state : std::enable_shared_from_this<state> {
  state(asio::any_io_executor executor, const tcp::endpoint& listen_on, request_handler h,
        http_server_options o)
      : ex(std::move(executor)),
        acceptor(ex),
        handler(std::move(h)),
        options(o),
        accept_pause(ex),
        grace_timer(ex) {
    fit_descriptor_limit();
    at_capacity_answer = wire::at_capacity(options);
    spare_descriptor = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    acceptor.open(listen_on.protocol());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(listen_on);
    acceptor.listen(asio::socket_base::max_listen_connections);
    bound = acceptor.local_endpoint();
    acceptor.non_blocking(true);  // for the synchronous accept of refuse_without_descriptor
  }
  ~state() {
    if (spare_descriptor >= 0) ::close(spare_descriptor);
  }
  state(const state&) = delete;
  state& operator=(const state&) = delete;

  // At a descriptor limit below what max_connections needs, EMFILE would come before the cap
  // and its 503: accept() fails, the client waits in the backlog unanswered. So the cap is
  // lowered to what the limit can hold, and said once.
  void fit_descriptor_limit() {
    const std::size_t free = free_descriptors();
    const std::size_t others = reserved_descriptors + options.control_connections +
                               std::min(options.max_connections, max_refusing);
    const std::size_t room = free > others ? free - others : 1;
    if (options.max_connections <= room) return;
    log_error("max connections lowered", std::to_string(options.max_connections) + " -> " +
                                             std::to_string(room) + ": the process may open only " +
                                             std::to_string(free) +
                                             " more descriptors (RLIMIT_NOFILE)");
    options.max_connections = room;
  }

  asio::any_io_executor ex;
  tcp::acceptor acceptor;
  tcp::endpoint bound;
  request_handler handler;
  http_server_options options;
  asio::steady_timer accept_pause;
  asio::steady_timer grace_timer;
  // The 503 answer of a connection beyond max_connections, built once (after the cap is fit).
  response at_capacity_answer;
  // Every open connection, served or refused.
  std::unordered_set<std::shared_ptr<session>> sessions;
  // Those of `sessions` that are being refused (answered 503 and closed, or served one
  // control request); they take no slot.
  std::size_t refusing = 0;
  // Those of `sessions` closed to make room, whose coroutines have not ended yet: served ones
  // (evicting) and refused ones (refusals_dropped).
  std::size_t evicting = 0;
  std::size_t refusals_dropped = 0;
  wire::control_slots control;
  // Kept open to be closed when accept() runs out of descriptors, so that the waiting
  // connection can still be accepted and told 503 instead of hanging in the backlog.
  int spare_descriptor = -1;
  std::chrono::steady_clock::time_point last_exhaustion_log{};
  std::size_t exhaustions_unlogged = 0;
  std::vector<std::function<void()>> stop_callbacks;
  bool started = false;
  bool stopping = false;

  [[nodiscard]] std::size_t served() const noexcept {
    return sessions.size() - refusing - evicting;
  }

  // Closes the session that has waited the longest among those `eligible` picks, counting it in
  // `closing` until its coroutine ends. False when none is eligible.
  template <class Eligible>
  bool close_longest_waiting(Eligible eligible, std::size_t& closing) {
    session* oldest = nullptr;
    for (const auto& s : sessions) {
      if (s->evicted || !eligible(*s)) continue;
      if (oldest == nullptr || s->idle_since < oldest->idle_since) oldest = s.get();
    }
    if (oldest == nullptr) return false;
    oldest->evicted = true;
    ++closing;
    oldest->close();
    return true;
  }

  // Gives a new connection the slot of the one idle the longest: between requests of a
  // keep-alive connection, or a fresh one that has sent nothing for a second. One whose next
  // request has begun to arrive is not idle. A client must expect a keep-alive connection to
  // close between requests (RFC 9112 section 9.3.1), so no request is lost.
  bool evict_idle() {
    const auto now = std::chrono::steady_clock::now();
    return close_longest_waiting(
        [&](session& s) {
          if (s.phase != wire::session_phase::idle || s.refused) return false;
          if (!s.used && now - s.idle_since < fresh_idle_evictable) return false;
          boost::system::error_code ec;
          return s.stream.socket().available(ec) == 0 && !ec;
        },
        evicting);
  }

  // Refusals that wait for their request head make room for a new connection: the oldest is
  // closed (it would have been answered 503 anyway), so that clients slow to send their heads
  // cannot keep every later one, a health check included, from an answer.
  bool drop_oldest_refusal() {
    return close_longest_waiting(
        [](const session& s) { return s.refused && !s.holds_control_slot; }, refusals_dropped);
  }

  // At the cap, once no idle connection can give up its slot, a new connection is accepted and
  // answered 503 with Retry-After, then closed, rather than left unaccepted in the listen
  // backlog. A client then learns in one round trip that nothing was processed and when to try
  // again; left in the backlog, its connect succeeds (the kernel completes it) and its request
  // waits unanswered until a slot frees or its timeout fires, which a client cannot tell from a
  // request that was lost after it was processed. The refusal reads the request head only (a
  // control path is served on a control slot) within the time of a lingering close, then
  // answers. Refusals under way are capped (max_refusing); beyond that the oldest one waiting
  // is closed to make room.
  void start_session(tcp::socket socket) {
    const bool refuse = served() >= options.max_connections && !evict_idle();
    if (refuse && refusing - refusals_dropped >= std::min(options.max_connections, max_refusing) &&
        !drop_oldest_refusal()) {
      return;  // closes with `socket`
    }
    boost::system::error_code ec;
    // Responses are small and written in one go; Nagle would only add latency.
    socket.set_option(tcp::no_delay(true), ec);
    auto s = std::make_shared<session>(std::move(socket));
    s->refused = refuse;
    sessions.insert(s);
    if (refuse) ++refusing;
    asio::co_spawn(ex, run_session(shared_from_this(), std::move(s)), asio::detached);
  }

  void begin_shutdown() {
    if (stopping) return;
    stopping = true;
    boost::system::error_code ec;
    acceptor.close(ec);
    accept_pause.cancel();
    // Copy: closing never completes anything inline, but the registry must not be iterated
    // while a session could erase itself.
    const std::vector<std::shared_ptr<session>> open(sessions.begin(), sessions.end());
    for (const auto& s : open) {
      if (s->phase != wire::session_phase::busy) s->close();
    }
    if (!sessions.empty()) {
      grace_timer.expires_after(options.shutdown_grace);
      grace_timer.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
        if (ec) return;
        if (auto self = weak.lock()) self->force_all();
      });
    }
  }

  void force_all() {
    const std::vector<std::shared_ptr<session>> open(sessions.begin(), sessions.end());
    for (const auto& s : open)
      s->force_close();
  }

  // on_stopped is posted, never called inline: shutdown() may be called from inside a callback
  // of the caller's own, which must not be re-entered.
  void maybe_finish_stop() {
    if (!stopping || !sessions.empty() || stop_callbacks.empty()) return;
    grace_timer.cancel();
    for (auto& cb : std::exchange(stop_callbacks, {}))
      asio::post(ex, std::move(cb));
  }

  static awaitable<void> accept_loop(std::shared_ptr<state> self);
  static awaitable<void> run_session(std::shared_ptr<state> self, std::shared_ptr<session> s);

  [[nodiscard]] wire::connection_context connection() noexcept {
    return {.options = options,
            .handler = handler,
            .stopping = stopping,
            .control = control,
            .at_capacity = at_capacity_answer};
  }

  // accept() failed for want of a descriptor: the spare one makes room to accept the waiting
  // connection, tell it 503 and close it at once (it cannot be kept for a lingering close, so
  // what it sent is read first, lest the close reset the answer away). Returns false when that
  // could not be done, or when no connection was waiting: Linux's accept() takes a descriptor
  // before it looks at the backlog, so EMFILE does not mean that one is. The accept here never
  // waits (it used to block the server's thread, and every connection it serves, until the
  // next client came, and then refuse that one however many descriptors were back by then).
  bool refuse_without_descriptor() {
    if (spare_descriptor < 0) return false;
    ::close(spare_descriptor);
    spare_descriptor = -1;
    tcp::socket socket(ex);
    boost::system::error_code ec;
    acceptor.non_blocking(true, ec);
    acceptor.accept(socket, ec);
    const bool accepted = !ec;
    if (accepted) {
      socket.non_blocking(true, ec);
      std::array<char, 16 * 1024> sink{};
      socket.read_some(asio::buffer(sink), ec);
      const std::string answer = wire::at_capacity_bytes(at_capacity_answer);
      socket.write_some(asio::buffer(answer), ec);
      socket.shutdown(tcp::socket::shutdown_both, ec);
      socket.close(ec);
    }
    spare_descriptor = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    return accepted && (!ec || ec == asio::error::would_block);
  }

  // One line at most per exhaustion_log_interval, with how many were not logged: a server out
  // of descriptors must not also fill its stderr.
  void log_exhaustion(const boost::system::error_code& ec, bool answered) {
    ++exhaustions_unlogged;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_exhaustion_log < exhaustion_log_interval) return;
    log_error("accept failed", ec.message() + (answered ? ": answered 503" : "") + " (" +
                                   std::to_string(exhaustions_unlogged) +
                                   " time(s) since the last report)");
    last_exhaustion_log = now;
    exhaustions_unlogged = 0;
  }
};

awaitable<void> http_server::state::accept_loop(std::shared_ptr<state> self) {
  while (!self->stopping && self->acceptor.is_open()) {
    auto [ec, socket] = co_await self->acceptor.async_accept(use_nothrow);
    // An accept that completed just before shutdown: the socket closes with this scope.
    if (self->stopping || ec == asio::error::operation_aborted) co_return;
    if (ec) {
      if (!is_resource_exhaustion(ec)) {
        log_error("accept failed", ec.message());
        continue;
      }
      const bool answered = self->refuse_without_descriptor();
      self->log_exhaustion(ec, answered);
      if (!answered) {
        self->accept_pause.expires_after(accept_retry_pause);
        co_await self->accept_pause.async_wait(use_nothrow);
      }
      continue;
    }
    try {
      self->start_session(std::move(socket));
    } catch (const std::exception& e) {  // e.g. bad_alloc: drop this connection, keep accepting
      log_error("cannot start session", e.what());
    }
  }
}

awaitable<void> http_server::state::run_session(std::shared_ptr<state> self,
                                                std::shared_ptr<session> s) {
  try {
    co_await wire::serve_connection(self->connection(), *s);
  } catch (const std::exception& e) {
    log_error("connection failed", e.what());
  }
  s->close();
  self->control.release(*s);
  if (s->refused) {
    --self->refusing;
    if (s->evicted) --self->refusals_dropped;
  } else if (s->evicted) {
    --self->evicting;
  }
  self->sessions.erase(s);
  self->maybe_finish_stop();
}

http_server::http_server(asio::any_io_executor ex, const tcp::endpoint& listen_on,
                         request_handler handler, http_server_options options)
    : state_(std::make_shared<state>(std::move(ex), listen_on, std::move(handler), options)) {}

// Destroying the server without a completed shutdown aborts everything: the acceptor and every
// connection close, running handlers are cancelled, and pending on_stopped callbacks are dropped
// (their owner is gone). Sessions still keep the shared state alive until their coroutines end,
// so the executor's context must outlive this object (or be destroyed with its pending work).
http_server::~http_server() {
  auto& st = *state_;
  st.stop_callbacks.clear();
  if (!st.stopping) {
    st.stopping = true;
    boost::system::error_code ec;
    st.acceptor.close(ec);
  }
  try {
    st.accept_pause.cancel();
    st.grace_timer.cancel();
  } catch (...) {
  }
  st.force_all();
}

boost::asio::ip::tcp::endpoint http_server::local_endpoint() const {
  return state_->bound;
}

void http_server::start() {
  auto& st = *state_;
  if (st.started || st.stopping) return;
  st.started = true;
  asio::co_spawn(st.ex, state::accept_loop(state_), [](const std::exception_ptr& e) {
    if (!e) return;
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      log_error("accept loop ended", ex.what());
    } catch (...) {
      log_error("accept loop ended", "a non-standard exception");
    }
  });
}

void http_server::shutdown(std::function<void()> on_stopped) {
  auto& st = *state_;
  if (on_stopped) st.stop_callbacks.push_back(std::move(on_stopped));
  st.begin_shutdown();
  st.maybe_finish_stop();
}

std::size_t http_server::open_connections() const noexcept {
  return state_->sessions.size();
}

std::size_t free_descriptors() noexcept {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
    return std::numeric_limits<std::size_t>::max();
  }
  std::size_t open = 0;
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec)) {
    ++open;
  }
  if (ec) return std::numeric_limits<std::size_t>::max();  // no /proc: nothing to go by
  const auto cur = static_cast<std::size_t>(limit.rlim_cur);
  return cur > open ? cur - open : 0;
}

std::size_t raise_descriptor_limit() noexcept {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur == RLIM_INFINITY ? std::numeric_limits<std::size_t>::max()
                                         : static_cast<std::size_t>(limit.rlim_cur);
}

}  // namespace idem::mock
