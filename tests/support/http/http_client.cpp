#include "tests/support/http/http_client.hpp"

#include <sys/socket.h>

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <cerrno>
#include <optional>
#include <string>
#include <utility>

namespace idem::kit {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// Maps the ways a connection can fail to the three kinds tests (and the SDK's classification)
// care about; everything else keeps its errno value, e.g. connection_refused.
std::error_code to_std_error(const boost::system::error_code& ec) {
  if (!ec) return {};
  if (ec == beast::error::timeout) return std::make_error_code(std::errc::timed_out);
  if (ec == asio::error::connection_reset || ec == asio::error::broken_pipe) {
    return std::make_error_code(std::errc::connection_reset);
  }
  if (ec == asio::error::eof || ec == asio::error::connection_aborted ||
      ec == http::error::end_of_stream || ec == http::error::partial_message) {
    return std::make_error_code(std::errc::connection_aborted);
  }
  if (ec.category() == boost::system::system_category()) {
    return {ec.value(), std::system_category()};
  }
  if (ec.category() == boost::system::generic_category()) {
    return {ec.value(), std::generic_category()};
  }
  return static_cast<std::error_code>(ec);
}

enum class peer_state { alive, closed, unsolicited_bytes };

// Non-blocking peek: tells whether the server closed a kept-alive connection since the last
// response, the way HTTP clients check a pooled connection before reusing it.
peer_state probe(tcp::socket& socket) {
  if (!socket.is_open()) return peer_state::closed;
  char c = 0;
  const auto n = ::recv(socket.native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n > 0) return peer_state::unsolicited_bytes;
  if (n == 0) return peer_state::closed;
  return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? peer_state::alive
                                                                   : peer_state::closed;
}

http_response to_response(http::response<http::string_body>& msg) {
  http_response res;
  res.status = static_cast<int>(msg.result_int());
  for (const auto& field : msg) {
    res.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  res.body = std::move(msg.body());
  return res;
}

}  // namespace

std::optional<std::string> http_response::header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (mock::iequals(k, name)) return v;
  }
  return std::nullopt;
}

nlohmann::json http_response::json() const {
  return nlohmann::json::parse(body);
}

struct http_client::impl {
  impl(std::uint16_t p, std::string h) : host(std::move(h)), port(p) {}

  std::string host;
  std::uint16_t port;
  asio::io_context io;
  std::optional<beast::tcp_stream> stream;  // the persistent connection, when open
  beast::flat_buffer buffer;
  int opened = 0;

  // Every operation is started asynchronously and the private context is run until it
  // completes; the stream's expiry bounds each one, so run() never blocks past the deadline.
  void run() {
    io.restart();
    io.run();
  }

  boost::system::error_code connect(beast::tcp_stream& s) {
    boost::system::error_code ec;
    tcp::resolver resolver(io);
    auto endpoints = resolver.resolve(host, std::to_string(port), ec);
    if (ec) return ec;
    s.async_connect(endpoints,
                    [&](const boost::system::error_code& e, const tcp::endpoint&) { ec = e; });
    run();
    if (!ec) ++opened;
    return ec;
  }

  boost::system::error_code write(beast::tcp_stream& s, auto& message) {
    boost::system::error_code ec;
    http::async_write(s, message, [&](const boost::system::error_code& e, std::size_t) { ec = e; });
    run();
    return ec;
  }

  // Reads one final response, skipping interim 1xx responses (e.g. 100 Continue).
  boost::system::error_code read(beast::tcp_stream& s, beast::flat_buffer& b,
                                 http::response<http::string_body>& out) {
    for (;;) {
      http::response_parser<http::string_body> parser;
      parser.body_limit(boost::none);
      parser.header_limit(1024 * 1024);
      boost::system::error_code ec;
      http::async_read(s, b, parser,
                       [&](const boost::system::error_code& e, std::size_t) { ec = e; });
      run();
      if (ec) return ec;
      out = parser.release();
      if (out.result_int() / 100 != 1 || out.result() == http::status::switching_protocols) {
        return {};
      }
    }
  }

  void close() noexcept {
    if (stream) {
      boost::system::error_code ec;
      stream->socket().shutdown(tcp::socket::shutdown_both, ec);
      stream->close();
      stream.reset();
    }
    buffer.clear();
  }
};

http_client::http_client(std::uint16_t port, std::string host)
    : impl_(std::make_unique<impl>(port, std::move(host))) {}

http_client::~http_client() {
  impl_->close();
}

http_result http_client::send(std::string_view method, std::string_view target,
                              const mock::header_list& headers, std::string_view body,
                              std::chrono::milliseconds timeout) {
  auto& d = *impl_;
  http_result result;
  if (d.stream && probe(d.stream->socket()) != peer_state::alive) d.close();

  // One deadline for the whole exchange, connecting included.
  const bool fresh = !d.stream;
  if (fresh) d.stream.emplace(d.io);
  d.stream->expires_after(timeout);
  if (fresh) {
    if (auto ec = d.connect(*d.stream)) {
      result.ec = to_std_error(ec);
      d.close();
      return result;
    }
  }

  http::request<http::string_body> req;
  req.method_string(method);
  req.target(target);
  req.version(11);
  bool has_host = false;
  bool has_content_type = false;
  for (const auto& [name, value] : headers) {
    has_host = has_host || mock::iequals(name, "Host");
    has_content_type = has_content_type || mock::iequals(name, "Content-Type");
    req.insert(name, value);
  }
  if (!has_host) req.set(http::field::host, d.host + ":" + std::to_string(d.port));
  if (!body.empty() && !has_content_type) req.set(http::field::content_type, "application/json");
  req.body() = std::string(body);
  req.prepare_payload();

  const auto write_ec = d.write(*d.stream, req);
  if (write_ec == beast::error::timeout) {
    result.ec = to_std_error(write_ec);
    d.close();
    return result;
  }
  // Even when the write failed, the server may have answered (e.g. 413) before it closed.
  http::response<http::string_body> msg;
  if (auto read_ec = d.read(*d.stream, d.buffer, msg)) {
    result.ec = to_std_error(write_ec ? write_ec : read_ec);
    d.close();
    return result;
  }
  result.res = to_response(msg);
  if (write_ec || !msg.keep_alive()) d.close();
  return result;
}

http_result http_client::send_raw(std::string_view bytes, std::chrono::milliseconds timeout) {
  auto& d = *impl_;
  http_result result;
  beast::tcp_stream s(d.io);
  beast::flat_buffer b;
  s.expires_after(timeout);
  if (auto ec = d.connect(s)) {
    result.ec = to_std_error(ec);
    return result;
  }
  boost::system::error_code write_ec;
  asio::async_write(s, asio::buffer(bytes.data(), bytes.size()),
                    [&](const boost::system::error_code& e, std::size_t) { write_ec = e; });
  d.run();
  http::response<http::string_body> msg;
  if (write_ec == beast::error::timeout) {
    result.ec = to_std_error(write_ec);
  } else if (auto read_ec = d.read(s, b, msg)) {
    result.ec = to_std_error(write_ec ? write_ec : read_ec);
  } else {
    result.res = to_response(msg);
  }
  boost::system::error_code ignored;
  s.socket().shutdown(tcp::socket::shutdown_both, ignored);
  s.close();
  return result;
}

bool http_client::connected() const {
  return impl_->stream && probe(impl_->stream->socket()) != peer_state::closed;
}

int http_client::connections_opened() const noexcept {
  return impl_->opened;
}

void http_client::close() {
  impl_->close();
}

}  // namespace idem::kit
