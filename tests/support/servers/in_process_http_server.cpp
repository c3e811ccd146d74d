#include "tests/support/servers/in_process_http_server.hpp"

#include <boost/asio/ip/address_v4.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <utility>

namespace idem::kit {

in_process_http_server::~in_process_http_server() {
  stop();
  server_.reset();
}

void in_process_http_server::start(mock::request_handler handler,
                                   mock::http_server_options options) {
  namespace asio = boost::asio;
  server_ = std::make_unique<mock::http_server>(
      io_.get_executor(), asio::ip::tcp::endpoint(asio::ip::address_v4::loopback(), 0),
      std::move(handler), options);
  server_->start();
  port_ = server_->local_endpoint().port();
  thread_ = std::thread([this] { io_.run(); });
}

std::future<void> in_process_http_server::shutdown() {
  auto stopped = std::make_shared<std::promise<void>>();
  auto future = stopped->get_future();
  on_io([&] { server_->shutdown([stopped] { stopped->set_value(); }); });
  return future;
}

std::size_t in_process_http_server::open_connections() {
  return on_io([&] { return server_->open_connections(); });
}

void in_process_http_server::destroy_server() {
  on_io([&] { server_.reset(); });
}

void in_process_http_server::stop() {
  if (!thread_.joinable()) return;
  work_.reset();
  io_.stop();
  thread_.join();
}

}  // namespace idem::kit
