// One connection of the front end (http_connection.hpp): a request's header and body read within
// the limits, the handler run against a forced close, the reply written, and the close that lets
// a refused client read its answer.
#include "mock_server/http/http_connection.hpp"

#include <algorithm>
#include <array>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/read_size.hpp>
#include <boost/beast/http.hpp>
#include <cstdint>
#include <exception>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "mock_server/http/http_wire.hpp"
#include "mock_server/http/key_header.hpp"

namespace idem::mock::wire {

// Outside the anonymous namespace: serve_connection's coroutine frame holds them, and a frame of
// a function with external linkage must not hold a type with internal linkage
// (-Wsubobject-linkage in a unity batch).
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

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;
using asio::awaitable;

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

// The steps of one request, defined below in the order a request meets them.
awaitable<body_result> read_body(const connection_context& ctx, session& s,
                                 beast::flat_buffer& buffer, beast_request_parser& parser);
awaitable<reply> call_handler(const request_handler& handler, request req);
awaitable<void> wait_until_forced(session& s);
awaitable<void> answer_and_close_impl(const connection_context& ctx, session& s, response res);
awaitable<void> lingering_close(const connection_context& ctx, session& s);

awaitable<next_step> serve_one(const connection_context& ctx, session& s,
                               beast::flat_buffer& buffer) {
  if (ctx.stopping || s.forced) co_return next_step::close;

  // Idle: only the wait for a new request's first byte counts against idle_timeout; bytes
  // already buffered (a pipelined request) start the next request at once.
  s.phase = session_phase::idle;
  s.idle_since = std::chrono::steady_clock::now();
  if (buffer.size() == 0) {
    // Waits for the first byte without reading it: a read would take the bytes off the socket
    // before this coroutine resumes, and in between the session would look idle with nothing
    // to read, so that the server could close it to make room with a request already read.
    // A connection beyond the cap gets only as long for its request as a lingering close.
    using namespace asio::experimental::awaitable_operators;
    s.idle_timer.expires_after(s.refused ? std::min<std::chrono::milliseconds>(
                                               ctx.options.idle_timeout, lingering_close_limit)
                                         : ctx.options.idle_timeout);
    auto woken = co_await (s.stream.socket().async_wait(tcp::socket::wait_read, use_nothrow) ||
                           s.idle_timer.async_wait(use_nothrow));
    // Idle timeout, peer gone, or closed by shutdown or to make room.
    if (woken.index() != 0 || std::get<0>(std::get<0>(woken)) || s.evicted) {
      co_return next_step::close;
    }
    s.phase = session_phase::busy;
    s.stream.expires_after(ctx.options.read_timeout);
    auto [ec, n] = co_await s.stream.async_read_some(buffer.prepare(first_read_size), use_nothrow);
    if (ec) co_return next_step::close;  // the peer closed: readable at end of stream
    buffer.commit(n);
  }

  // Header. The body limit is applied by hand below: Beast would reject an oversized
  // Content-Length while parsing the header, before the request could reach the core.
  s.phase = session_phase::busy;
  // A refused connection's whole head must come within the short wait too.
  s.stream.expires_after(s.refused ? lingering_close_limit : ctx.options.read_timeout);
  beast_request_parser parser;
  parser.header_limit(static_cast<std::uint32_t>(
      std::min<std::size_t>(ctx.options.header_limit, std::numeric_limits<std::uint32_t>::max())));
  parser.body_limit(boost::none);
  if (auto [ec, n] = co_await http::async_read_header(s.stream, buffer, parser, use_nothrow); ec) {
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
      co_await answer_and_close_impl(
          ctx, s,
          transport_problem(431, "request-header-fields-too-large",
                            "Request Header Fields Too Large",
                            "the request header block exceeds " +
                                std::to_string(ctx.options.header_limit) + " bytes"));
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
      co_await answer_and_close_impl(ctx, s, std::move(answer));
    }
    co_return next_step::close;
  }

  // Framing, Host and credentials that cannot be trusted: answered before anything else, and
  // the connection closes, so that body bytes of unknown length never run as a request.
  if (auto refusal = header_section_refusal(parser.get())) {
    co_await answer_and_close_impl(ctx, s, std::move(*refusal));
    co_return next_step::close;
  }

  request req = request_head(parser.get());

  // Beyond the cap only a control path is served, on a slot of its own, and nothing else is
  // read: the answer says nothing was processed.
  if (s.refused && !ctx.control.take(ctx.options, req.path(), s)) {
    co_await answer_and_close_impl(ctx, s, ctx.at_capacity);
    co_return next_step::close;
  }

  // Body: never buffered past body_limit. An oversized body is not read at all (Content-Length)
  // or abandoned where it crosses the limit (chunked); the core still sees the request so that
  // its order of checks decides the answer.
  const auto content_length = parser.content_length();
  bool too_large = content_length && *content_length > ctx.options.body_limit;
  if (!too_large && !parser.is_done()) {
    if (expects_continue(parser.get())) {
      http::response<http::empty_body> interim{http::status::continue_, 11};
      if (auto [ec, n] = co_await http::async_write(s.stream, interim, use_nothrow); ec) {
        co_return next_step::close;
      }
    }
    const auto body = co_await read_body(ctx, s, buffer, parser);
    switch (body.status) {
      case body_status::complete:
        break;
      case body_status::too_large:
        too_large = true;
        break;
      case body_status::framing_too_large:
        co_await answer_and_close_impl(
            ctx, s,
            framing_too_large("the chunked framing of the request (chunk-size lines, chunk "
                              "extensions, trailer) exceeds " +
                              std::to_string(ctx.options.framing_limit) +
                              " bytes, or one line of it " +
                              std::to_string(read_buffer_limit(ctx.options)) + " bytes"));
        co_return next_step::close;
      case body_status::malformed:
        co_await answer_and_close_impl(ctx, s,
                                       bad_request("malformed HTTP body: " + body.ec.message()));
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
  auto outcome = co_await (call_handler(ctx.handler, std::move(req)) || wait_until_forced(s));
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
      client_keep_alive && !rep.close && !core_close && !too_large && !ctx.stopping && !s.refused;
  auto msg = to_beast(std::move(rep.res), version, keep_alive, is_head);
  s.stream.expires_after(ctx.options.write_timeout);
  if (auto [ec, n] = co_await http::async_write(s.stream, msg, use_nothrow); ec) {
    co_return next_step::close;
  }
  s.used = true;
  if (keep_alive) co_return next_step::keep_alive;
  if (too_large) {
    co_await lingering_close(ctx, s);  // the unread body is still arriving
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
awaitable<body_result> read_body(const connection_context& ctx, session& s,
                                 beast::flat_buffer& buffer, beast_request_parser& parser) {
  parser.body_limit(ctx.options.body_limit);
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
    if (framing > ctx.options.framing_limit) {
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

awaitable<reply> call_handler(const request_handler& handler, request req) {
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

awaitable<void> wait_until_forced(session& s) {
  // Ends when the session is forced closed, or when the handler wins and this wait is cancelled.
  co_await s.force_timer.async_wait(use_nothrow);
}

awaitable<void> answer_and_close_impl(const connection_context& ctx, session& s, response res) {
  auto msg = to_beast(std::move(res), 11, /*keep_alive=*/false, /*is_head=*/false);
  s.stream.expires_after(ctx.options.write_timeout);
  if (auto [ec, n] = co_await http::async_write(s.stream, msg, use_nothrow); ec) {
    s.close();
    co_return;
  }
  co_await lingering_close(ctx, s);
}

awaitable<void> lingering_close(const connection_context& ctx, session& s) {
  // A shutdown closes draining sessions at once; one that started earlier still drains.
  s.phase = session_phase::draining;
  if (ctx.stopping) {
    s.close();
    co_return;
  }
  boost::system::error_code ignored;
  s.stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  s.stream.expires_after(
      std::min<std::chrono::milliseconds>(ctx.options.read_timeout, lingering_close_limit));
  std::array<char, 16 * 1024> sink{};
  for (;;) {
    auto [ec, n] = co_await s.stream.async_read_some(asio::buffer(sink), use_nothrow);
    if (ec) break;  // the peer closed, the time is up, or shutdown closed the socket
  }
  s.close();
}

}  // namespace

awaitable<void> serve_connection(connection_context ctx, session& s) {
  beast::flat_buffer buffer(read_buffer_limit(ctx.options));
  while (co_await serve_one(ctx, s, buffer) == next_step::keep_alive) {
  }
}

bool control_slots::take(const http_server_options& o, std::string_view path, session& s) {
  if (in_use >= o.control_connections) return false;
  const bool control =
      std::any_of(o.control_paths.begin(), o.control_paths.end(), [path](const std::string& p) {
        return path == p || (p.ends_with('/') && path.starts_with(p));
      });
  if (!control) return false;
  ++in_use;
  s.holds_control_slot = true;
  return true;
}

void control_slots::release(session& s) noexcept {
  if (!s.holds_control_slot) return;
  s.holds_control_slot = false;
  --in_use;
}

}  // namespace idem::mock::wire
