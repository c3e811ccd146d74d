// The front end's listener (http_server.hpp): the accept loop, the registry of open connections
// with its cap, and the graceful stop. One connection's work is in http_connection.cpp.
#include "mock_server/http/http_server.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <exception>
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
    acceptor.open(listen_on.protocol());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(listen_on);
    acceptor.listen(asio::socket_base::max_listen_connections);
    bound = acceptor.local_endpoint();
  }

  asio::any_io_executor ex;
  tcp::acceptor acceptor;
  tcp::endpoint bound;
  request_handler handler;
  http_server_options options;
  asio::steady_timer accept_pause;
  asio::steady_timer grace_timer;
  // The 503 answer of a connection beyond max_connections, built once.
  response at_capacity_answer = wire::at_capacity(options);
  // Every open connection, served or refused.
  std::unordered_set<std::shared_ptr<session>> sessions;
  // Those of `sessions` that are being refused (answered 503 and closed); they are not served.
  std::size_t refusing = 0;
  std::vector<std::function<void()>> stop_callbacks;
  bool started = false;
  bool stopping = false;

  [[nodiscard]] std::size_t served() const noexcept { return sessions.size() - refusing; }

  // At the cap a new connection is accepted and answered 503 with Retry-After at once, then
  // closed, rather than left unaccepted in the listen backlog. A client then learns in one round
  // trip that nothing was processed and when to try again; left in the backlog, its connect
  // succeeds (the kernel completes it) and its request waits unanswered until a slot frees or its
  // timeout fires, which a client cannot tell from a request that was lost after it was processed.
  // The refusal reads no request and runs no handler: a fixed answer, then the lingering close
  // that lets the client read it. Refusals under way are capped too (at max_connections again);
  // beyond that a connection is closed unanswered, which costs the server nothing.
  void start_session(tcp::socket socket) {
    const bool refuse = served() >= options.max_connections;
    if (refuse && refusing >= options.max_connections) return;  // closes with `socket`
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

  [[nodiscard]] wire::connection_context connection() const noexcept {
    return {.options = options, .handler = handler, .stopping = stopping};
  }
};

awaitable<void> http_server::state::accept_loop(std::shared_ptr<state> self) {
  while (!self->stopping && self->acceptor.is_open()) {
    auto [ec, socket] = co_await self->acceptor.async_accept(use_nothrow);
    // An accept that completed just before shutdown: the socket closes with this scope.
    if (self->stopping || ec == asio::error::operation_aborted) co_return;
    if (ec) {
      log_error("accept failed", ec.message());
      if (is_resource_exhaustion(ec)) {
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
    if (s->refused) {
      co_await wire::answer_and_close(self->connection(), *s, self->at_capacity_answer);
    } else {
      co_await wire::serve_connection(self->connection(), *s);
    }
  } catch (const std::exception& e) {
    log_error("connection failed", e.what());
  }
  s->close();
  if (s->refused) --self->refusing;
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

}  // namespace idem::mock
