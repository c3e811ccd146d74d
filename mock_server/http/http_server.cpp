#include "mock_server/http/http_server.hpp"

#include <algorithm>
#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/read_size.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <exception>
#include <iostream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "mock_server/http/key_header.hpp"
#include "mock_server/http/problem.hpp"

namespace idem::mock {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;
using asio::awaitable;

// Every socket and timer wait reports errors as values: a failed read is a normal way for a
// connection to end, not an exceptional one.
constexpr auto use_nothrow = asio::as_tuple(asio::use_awaitable);

// How long the accept loop rests after running out of descriptors, so that it does not spin
// while the condition lasts (connections wait in the listen backlog meanwhile).
constexpr auto accept_retry_pause = 100ms;
// After an error answer (400, 431, 413) the peer may still be sending the request. Closing a
// socket with unread bytes makes the kernel send RST, which can destroy the answer before the
// peer reads it, so the body is read and discarded for a short while first ("lingering close").
constexpr auto lingering_close_limit = 2s;
// The first read of a request (the one that ends the idle wait).
constexpr std::size_t first_read_size = 4096;
// The most one later read of a request asks for (as much as Beast's own reads).
constexpr std::size_t read_chunk_size = 64 * 1024;

// The most a connection buffers of what it has not parsed yet. Beast 1.81 parses a chunk-size
// line (with its extensions) and the trailer section only once they are whole, and limits
// neither: a line that never ends would grow an unbounded buffer for ever. Capped, such a line
// ends the request (413) once it fills the buffer. A header block needs room up to header_limit
// (Beast reports header_limit first); body data never waits here, the parser moves it into the
// body as it comes.
std::size_t read_buffer_limit(const http_server_options& o) {
  return o.header_limit + first_read_size;
}

void log_error(std::string_view what, std::string_view detail) {
  std::cerr << "idem http_server: " << what << ": " << detail << '\n';
}

bool is_resource_exhaustion(const boost::system::error_code& ec) {
  return ec == asio::error::no_descriptors ||                         // EMFILE
         ec == boost::system::errc::too_many_files_open_in_system ||  // ENFILE
         ec == asio::error::no_buffer_space ||                        // ENOBUFS
         ec == asio::error::no_memory;                                // ENOMEM
}

// Parse failures of the request itself (answered with 400), as opposed to the connection ending.
bool is_malformed_request(const boost::system::error_code& ec) {
  static const auto& http_category = make_error_code(http::error::bad_method).category();
  return ec.category() == http_category && ec != http::error::end_of_stream &&
         ec != http::error::partial_message;
}

// IMF-fixdate (RFC 9110 section 5.6.7), independent of the C locale.
std::string http_date(std::chrono::system_clock::time_point tp) {
  static constexpr std::array<const char*, 7> days = {"Sun", "Mon", "Tue", "Wed",
                                                      "Thu", "Fri", "Sat"};
  static constexpr std::array<const char*, 12> months = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::time_t t = std::chrono::system_clock::to_time_t(tp);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 64> buf{};
  std::snprintf(buf.data(), buf.size(), "%s, %02d %s %04d %02d:%02d:%02d GMT",
                days.at(static_cast<std::size_t>(tm.tm_wday) % 7), tm.tm_mday,
                months.at(static_cast<std::size_t>(tm.tm_mon) % 12), tm.tm_year + 1900, tm.tm_hour,
                tm.tm_min, tm.tm_sec);
  return buf.data();
}

// Problems raised by the transport itself, before or around the core. Built here rather than
// with make_problem() so that the front end depends on nothing but http_message.
response transport_problem(int status, std::string_view name, std::string_view title,
                           std::string detail) {
  nlohmann::json body = {{"type", std::string(problem_type_prefix) + std::string(name)},
                         {"title", title},
                         {"status", status},
                         {"detail", detail}};
  if (name == "validation-failed") {
    body["errors"] = nlohmann::json::array({{{"field", "request"}, {"message", detail}}});
  }
  response res;
  res.status = status;
  res.set_header("Content-Type", "application/problem+json");
  res.body = body.dump();
  return res;
}

response bad_request(std::string detail) {
  return transport_problem(400, "validation-failed", "Validation Failed", std::move(detail));
}

// The answer to a chunked body whose framing (not its data) is too large.
response framing_too_large(std::string detail) {
  return transport_problem(413, "payload-too-large", "Payload Too Large", std::move(detail));
}

// The answer to a connection beyond max_connections.
response at_capacity(const http_server_options& o) {
  auto res = transport_problem(503, "unavailable", "Service Unavailable",
                               "the server is serving its maximum of " +
                                   std::to_string(o.max_connections) +
                                   " connections; nothing was processed, try again");
  res.set_header("Retry-After", "1");
  return res;
}

using beast_request = http::request<http::string_body>;
using beast_response = http::response<http::string_body>;
using beast_request_parser = http::request_parser<http::string_body>;

// The request as its header section describes it, taken before the body is read: Beast adds
// trailer fields to the same message, and a trailer field must not be merged into the header
// section (RFC 9110 section 6.5.1), where the core would take it for a header.
request request_head(const beast_request& m) {
  request r;
  r.method = std::string(m.method_string());
  r.target = std::string(m.target());
  r.headers.reserve(static_cast<std::size_t>(std::distance(m.begin(), m.end())));
  for (const auto& field : m) {
    r.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  return r;
}

// The transport owns the framing headers: the core's Content-Length, Connection or
// Transfer-Encoding would contradict what is written. A Date set by the core (e.g. from the
// mock clock) is kept; otherwise the real time is sent.
beast_response to_beast(response res, unsigned version, bool keep_alive, bool is_head) {
  beast_response msg;
  msg.version(version);
  const bool valid_status = res.status >= 100 && res.status <= 999;
  msg.result(static_cast<unsigned>(valid_status ? res.status : 500));
  bool has_date = false;
  for (auto& [name, value] : res.headers) {
    if (iequals(name, "Content-Length") || iequals(name, "Connection") ||
        iequals(name, "Transfer-Encoding")) {
      continue;
    }
    if (iequals(name, "Date")) has_date = true;
    msg.insert(name, value);
  }
  if (!has_date) msg.set(http::field::date, http_date(std::chrono::system_clock::now()));
  const unsigned status = msg.result_int();
  const bool bodyless_status = status / 100 == 1 || status == 204 || status == 304;
  if (!bodyless_status) msg.body() = std::move(res.body);
  msg.keep_alive(keep_alive);
  // Beast leaves "close" implicit for HTTP/1.0; saying it costs nothing and helps every client.
  if (!keep_alive) msg.set(http::field::connection, "close");
  msg.prepare_payload();
  if (is_head) msg.body().clear();  // Content-Length still announces the GET body's size
  return msg;
}

bool expects_continue(const beast_request& m) {
  auto it = m.find(http::field::expect);
  return it != m.end() && iequals(it->value(), "100-continue") && m.version() >= 11;
}

enum class session_phase {
  idle,      ///< waiting for the first byte of the next request
  busy,      ///< reading a request, running the handler, or writing the response
  draining,  ///< lingering close after an error answer
};

// One accepted connection. Owned by its coroutine (and by the server's registry while open).
struct session {
  explicit session(tcp::socket socket)
      : stream(std::move(socket)),
        stall_timer(stream.get_executor()),
        force_timer(stream.get_executor()) {
    force_timer.expires_at(asio::steady_timer::time_point::max());
  }

  beast::tcp_stream stream;
  asio::steady_timer stall_timer;
  // Never fires on its own; force_close() expires it to pull the session out of the handler.
  asio::steady_timer force_timer;
  session_phase phase = session_phase::idle;
  bool forced = false;
  bool refused = false;  ///< accepted beyond max_connections: answered 503, never served

  void close() noexcept { stream.close(); }

  // Whatever the session is doing, it ends now; a running handler is cancelled (terminal
  // cancellation of the operation it awaits) and no response is written.
  void force_close() noexcept {
    forced = true;
    try {
      force_timer.expires_at(asio::steady_timer::time_point::min());
      stall_timer.cancel();
    } catch (...) {  // timers only throw on system failures; the socket close below suffices
    }
    stream.close();
  }

  // SO_LINGER{on, 0}: close() then discards unsent data and sends RST instead of FIN.
  void reset() noexcept {
    boost::system::error_code ec;
    stream.socket().set_option(tcp::socket::linger(true, 0), ec);
    stream.close();
  }
};

enum class next_step { keep_alive, close };

// How reading a request's body ended.
enum class body_status {
  complete,
  too_large,          ///< the data crossed body_limit: the core still sees the request
  framing_too_large,  ///< chunk-size lines, extensions or the trailer crossed their limits
  malformed,          ///< a parse error: 400
  gone,               ///< the peer left, the read timed out, or the server closed it
};

struct body_result {
  body_status status = body_status::complete;
  boost::system::error_code ec;
};

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
  response at_capacity_answer = at_capacity(options);
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
      if (s->phase != session_phase::busy) s->close();
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
  static awaitable<next_step> serve_one(state& st, session& s, beast::flat_buffer& buffer);
  static awaitable<body_result> read_body(const state& st, session& s, beast::flat_buffer& buffer,
                                          beast_request_parser& parser);
  static awaitable<reply> call_handler(const request_handler& handler, request req);
  static awaitable<void> wait_until_forced(session& s);
  static awaitable<void> answer_and_close(const state& st, session& s, response res);
  static awaitable<void> lingering_close(const state& st, session& s);
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
      co_await answer_and_close(*self, *s, self->at_capacity_answer);
    } else {
      beast::flat_buffer buffer(read_buffer_limit(self->options));
      while (co_await serve_one(*self, *s, buffer) == next_step::keep_alive) {
      }
    }
  } catch (const std::exception& e) {
    log_error("connection failed", e.what());
  }
  s->close();
  if (s->refused) --self->refusing;
  self->sessions.erase(s);
  self->maybe_finish_stop();
}

awaitable<next_step> http_server::state::serve_one(state& st, session& s,
                                                   beast::flat_buffer& buffer) {
  if (st.stopping || s.forced) co_return next_step::close;

  // Idle: only the wait for a new request's first byte counts against idle_timeout; bytes
  // already buffered (a pipelined request) start the next request at once.
  s.phase = session_phase::idle;
  if (buffer.size() == 0) {
    s.stream.expires_after(st.options.idle_timeout);
    auto [ec, n] = co_await s.stream.async_read_some(buffer.prepare(first_read_size), use_nothrow);
    if (ec) co_return next_step::close;  // idle timeout, peer gone, or closed by shutdown
    buffer.commit(n);
  }

  // Header. The body limit is applied by hand below: Beast would reject an oversized
  // Content-Length while parsing the header, before the request could reach the core.
  s.phase = session_phase::busy;
  s.stream.expires_after(st.options.read_timeout);
  beast_request_parser parser;
  parser.header_limit(static_cast<std::uint32_t>(
      std::min<std::size_t>(st.options.header_limit, std::numeric_limits<std::uint32_t>::max())));
  parser.body_limit(boost::none);
  if (auto [ec, n] = co_await http::async_read_header(s.stream, buffer, parser, use_nothrow); ec) {
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
      co_await answer_and_close(
          st, s,
          transport_problem(431, "request-header-fields-too-large",
                            "Request Header Fields Too Large",
                            "the request header block exceeds " +
                                std::to_string(st.options.header_limit) + " bytes"));
    } else if (is_malformed_request(ec)) {
      const auto raw = buffer.data();
      const std::string_view received{static_cast<const char*>(raw.data()), raw.size()};
      // Built before the co_await, not as a conditional expression inside its argument: GCC 12
      // destroys such a temporary twice in a coroutine.
      response answer = bad_request("malformed HTTP request: " + ec.message());
      if (has_key_line_with_control_character(received)) {
        answer = transport_problem(400, "idempotency-key-invalid", "Bad Request",
                                   "Idempotency-Key must be 1-255 visible ASCII characters, sent "
                                   "once");
      }
      co_await answer_and_close(st, s, std::move(answer));
    }
    co_return next_step::close;
  }

  request req = request_head(parser.get());

  // Body: never buffered past body_limit. An oversized body is not read at all (Content-Length)
  // or abandoned where it crosses the limit (chunked); the core still sees the request so that
  // its order of checks decides the answer.
  const auto content_length = parser.content_length();
  bool too_large = content_length && *content_length > st.options.body_limit;
  if (!too_large && !parser.is_done()) {
    if (expects_continue(parser.get())) {
      http::response<http::empty_body> interim{http::status::continue_, 11};
      if (auto [ec, n] = co_await http::async_write(s.stream, interim, use_nothrow); ec) {
        co_return next_step::close;
      }
    }
    const auto body = co_await read_body(st, s, buffer, parser);
    switch (body.status) {
      case body_status::complete:
        break;
      case body_status::too_large:
        too_large = true;
        break;
      case body_status::framing_too_large:
        co_await answer_and_close(
            st, s,
            framing_too_large("the chunked framing of the request (chunk-size lines, chunk "
                              "extensions, trailer) exceeds " +
                              std::to_string(st.options.framing_limit) +
                              " bytes, or one line of it " +
                              std::to_string(read_buffer_limit(st.options)) + " bytes"));
        co_return next_step::close;
      case body_status::malformed:
        co_await answer_and_close(st, s, bad_request("malformed HTTP body: " + body.ec.message()));
        co_return next_step::close;
      case body_status::gone:
        co_return next_step::close;
    }
  }
  // A body cut off at the limit is useless to the core, and keeping it would invite using it.
  if (!too_large) req.body = std::move(parser.get().body());
  req.body_too_large = too_large;

  const auto& message = parser.get();
  const unsigned version = message.version();
  const bool client_keep_alive = message.keep_alive();
  const bool is_head = message.method() == http::verb::head;

  // The handler races only against a forced close, so that shutdown_grace bounds a handler that
  // waits for a long time; the race ends only once the handler has returned.
  using namespace asio::experimental::awaitable_operators;
  auto outcome = co_await (call_handler(st.handler, std::move(req)) || wait_until_forced(s));
  if (outcome.index() != 0 || s.forced) co_return next_step::close;
  reply rep = std::get<0>(std::move(outcome));

  if (rep.how == delivery::reset) {
    s.reset();
    co_return next_step::close;
  }
  if (rep.how == delivery::stall && rep.stall_for > 0ms) {
    s.stall_timer.expires_after(rep.stall_for);
    co_await s.stall_timer.async_wait(use_nothrow);
    if (s.forced) co_return next_step::close;
  }

  // Decided after the handler and the stall: a shutdown that began meanwhile closes too. A core
  // that set "Connection: close" itself means the same as reply.close.
  const auto core_connection = rep.res.header("Connection");
  const bool core_close = core_connection && iequals(*core_connection, "close");
  const bool keep_alive =
      client_keep_alive && !rep.close && !core_close && !too_large && !st.stopping;
  auto msg = to_beast(std::move(rep.res), version, keep_alive, is_head);
  s.stream.expires_after(st.options.write_timeout);
  if (auto [ec, n] = co_await http::async_write(s.stream, msg, use_nothrow); ec) {
    co_return next_step::close;
  }
  if (keep_alive) co_return next_step::keep_alive;
  if (too_large) {
    co_await lingering_close(st, s);  // the unread body is still arriving
  } else {
    s.close();
  }
  co_return next_step::close;
}

// Reads the body after the header, bounding memory and work: body data by body_limit (Beast
// counts it), every other byte of a chunked body (chunk-size lines, extensions, the trailer) by
// framing_limit, counted here since Beast counts none of them, and any one unparsed line by the
// read buffer's cap. Without the count, chunk after tiny chunk, each with a long extension, would
// stay within the buffer and the body limit while the server read and parsed without end. The
// loop is Beast's read_some by hand: http::async_read_some goes on reading for as long as the
// buffered bytes end inside a chunk-size line, so it would not come back to be counted. Every
// parse takes at most one buffer, so a limit is overrun by at most that much.
awaitable<body_result> http_server::state::read_body(const state& st, session& s,
                                                     beast::flat_buffer& buffer,
                                                     beast_request_parser& parser) {
  parser.body_limit(st.options.body_limit);
  parser.eager(true);
  std::size_t consumed = 0;  // by the parser since the header: data and framing
  for (;;) {
    boost::system::error_code ec = http::error::need_more;
    std::size_t used = 0;
    if (buffer.size() > 0) {
      used = parser.put(buffer.data(), ec);
      buffer.consume(used);
      consumed += used;
    }
    if (ec == http::error::body_limit) co_return body_result{body_status::too_large, ec};
    const std::size_t framing = consumed - std::min(consumed, parser.get().body().size());
    if (framing > st.options.framing_limit) {
      co_return body_result{body_status::framing_too_large, {}};
    }
    if (ec && ec != http::error::need_more) co_return body_result{body_status::malformed, ec};
    if (parser.is_done()) co_return body_result{};
    if (!ec && used > 0 && buffer.size() > 0) continue;

    const std::size_t room = beast::read_size(buffer, read_chunk_size);
    // One chunk-size line, or the trailer section, fills the whole buffer unfinished.
    if (room == 0) co_return body_result{body_status::framing_too_large, {}};
    auto [read_ec, n] = co_await s.stream.async_read_some(buffer.prepare(room), use_nothrow);
    if (read_ec) co_return body_result{body_status::gone, read_ec};  // eof: cut off mid-body
    buffer.commit(n);
  }
}

awaitable<reply> http_server::state::call_handler(const request_handler& handler, request req) {
  try {
    co_return co_await handler(std::move(req));
  } catch (const std::exception& e) {
    log_error("request handler threw", e.what());
  } catch (...) {
    log_error("request handler threw", "a non-standard exception");
  }
  co_return reply{.res = transport_problem(500, "internal", "Internal Server Error",
                                           "the server failed to process the request")};
}

awaitable<void> http_server::state::wait_until_forced(session& s) {
  // Ends when the session is forced closed, or when the handler wins and this wait is cancelled.
  co_await s.force_timer.async_wait(use_nothrow);
}

awaitable<void> http_server::state::answer_and_close(const state& st, session& s, response res) {
  auto msg = to_beast(std::move(res), 11, /*keep_alive=*/false, /*is_head=*/false);
  s.stream.expires_after(st.options.write_timeout);
  if (auto [ec, n] = co_await http::async_write(s.stream, msg, use_nothrow); ec) {
    s.close();
    co_return;
  }
  co_await lingering_close(st, s);
}

awaitable<void> http_server::state::lingering_close(const state& st, session& s) {
  // A shutdown closes draining sessions at once; one that started earlier still drains.
  s.phase = session_phase::draining;
  if (st.stopping) {
    s.close();
    co_return;
  }
  boost::system::error_code ignored;
  s.stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  s.stream.expires_after(
      std::min<std::chrono::milliseconds>(st.options.read_timeout, lingering_close_limit));
  std::array<char, 16 * 1024> sink{};
  for (;;) {
    auto [ec, n] = co_await s.stream.async_read_some(asio::buffer(sink), use_nothrow);
    if (ec) break;  // the peer closed, the time is up, or shutdown closed the socket
  }
  s.close();
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
