// The idem-mock-server process writes no bearer token, no Idempotency-Key and no request data
// (body, query) on its stdout or stderr, on the normal paths and on every error path a client
// can provoke: malformed JSON and HTTP, 401, 403, 413, 415, 422, 431, invalid keys, injected
// faults, a client gone in the middle of its request or of its execution, and a handler that
// fails (its database locked by another process). The real binary runs as a child process with
// its stderr in a file; each request carries unique markers, and the test looks for them in
// everything the process wrote once it stopped.
#include <gtest/gtest.h>
#include <signal.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "mock_server/storage/sqlite.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/http_client.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/support/temp_dir.hpp"

namespace idem::kit {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// A word that cannot turn up in a log by chance: `what` and 16 random hex digits.
std::string marker(const char* what) {
  std::random_device random;
  char digits[17];
  std::snprintf(digits, sizeof digits, "%08x%08x", random(), random());
  return what + std::string(digits);
}

// A valid create-order body with `data` in every free-text field and in one the server ignores.
json order_with(const std::string& data) {
  return {
      {"merchant_order_id", "m-" + data},
      {"customer_id", "c-" + data},
      {"currency", "EUR"},
      {"amount_minor", 1500},
      {"items", json::array({{{"sku", "s-" + data}, {"quantity", 3}, {"unit_price_minor", 500}}})},
      {"note", data}};
}

class LogHygiene : public ::testing::Test {
 protected:
  // Starts the server on a database file, with `extra` flags, its stderr into `log_path`.
  void start(std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"--listen", "127.0.0.1:0",   "--db",
                                  db_path,    "--admin-token", admin_token};
    args.insert(args.end(), extra.begin(), extra.end());
    server.emplace(std::move(args), log_path);
    http.emplace(server->port());
  }

  mock::header_list tenant(const std::string& idempotency_key = {}) const {
    mock::header_list h{{"Authorization", "Bearer " + token}};
    if (!idempotency_key.empty()) h.emplace_back("Idempotency-Key", idempotency_key);
    return h;
  }

  http_result admin(const std::string& method, const std::string& target, const json& body) {
    return http->send(method, target, {{"Authorization", "Bearer " + admin_token}},
                      body.is_null() ? std::string() : body.dump());
  }

  // Stops the server gracefully and returns everything it wrote (stdout, then stderr).
  std::string stop_and_read_output() {
    http.reset();
    server->stop(SIGTERM);
    std::ostringstream all;
    all << server->rest_of_stdout() << std::ifstream(log_path).rdbuf();
    return all.str();
  }

  // No marker, nor its first or last 8 digits (a log that cut it short), is in `output`.
  void expect_no_marker(const std::string& output) const {
    for (const auto* m : {&token, &key, &data, &admin_token}) {
      for (const auto& part : {*m, m->substr(3, 8), m->substr(m->size() - 8)}) {
        EXPECT_EQ(output.find(part), std::string::npos) << "'" << part << "' in:\n" << output;
      }
    }
  }

  temp_dir dir;
  std::string db_path = dir.file("server.db");
  std::string log_path = dir.file("server.log");
  std::string token = marker("tok");
  std::string key = marker("key");
  std::string data = marker("dat");
  std::string admin_token = marker("adm");
  std::optional<server_process> server;
  std::optional<http_client> http;
};

TEST_F(LogHygiene, NormalAndRefusedRequestsLeaveNoTokenKeyOrDataInTheServersOutput) {
  start();
  const auto order = order_with(data).dump();
  auto created = http->send("POST", "/v1/orders", tenant(key + "-1"), order);
  ASSERT_TRUE(has_status(created, 201));
  const auto id = created.res.json()["id"].get<std::string>();
  ASSERT_TRUE(has_status(http->send("POST", "/v1/orders", tenant(key + "-1"), order), 201));
  ASSERT_TRUE(has_status(http->send("GET", "/v1/orders/" + id, tenant()), 200));
  ASSERT_TRUE(
      has_status(http->send("GET", "/v1/orders?merchant_order_id=m-" + data, tenant()), 200));
  ASSERT_TRUE(has_status(http->send("GET", "/v1/requests/req_" + data, tenant()), 404));
  const json payment = {{"amount_minor", 1500}, {"currency", "EUR"}, {"payment_method", data}};
  ASSERT_TRUE(has_status(
      http->send("POST", "/v1/orders/" + id + "/payments", tenant(key + "-2"), payment.dump()),
      201));
  const json cancel = {{"reason", data}};
  ASSERT_TRUE(has_status(
      http->send("POST", "/v1/orders/" + id + "/cancel", tenant(key + "-3"), cancel.dump()), 200));

  // Refused: each answer is checked, so that each path really ran.
  EXPECT_TRUE(is_problem(
      http->send("POST", "/v1/orders", tenant(key + "-1"), order_with(data + "-other").dump()), 422,
      "idempotency-key-mismatch"));
  EXPECT_TRUE(is_problem(
      http->send("POST", "/v1/orders", tenant(key + "-4"), R"({"merchant_order_id":")" + data), 400,
      "validation-failed"));
  auto invalid = order_with(data);
  invalid["amount_minor"] = data;
  EXPECT_TRUE(is_problem(http->send("POST", "/v1/orders", tenant(key + "-4"), invalid.dump()), 400,
                         "validation-failed"));
  auto too_large = order_with(data);
  too_large["padding"] = std::string(70'000, 'x') + data;
  EXPECT_TRUE(is_problem(http->send("POST", "/v1/orders", tenant(key + "-5"), too_large.dump()),
                         413, "payload-too-large"));
  auto form = tenant(key + "-6");
  form.emplace_back("Content-Type", "text/plain");
  EXPECT_TRUE(has_status(http->send("POST", "/v1/orders", form, order), 415));
  EXPECT_TRUE(is_problem(http->send("POST", "/v1/orders", tenant(key + " 7"), order), 400,
                         "idempotency-key-invalid"));
  EXPECT_TRUE(
      is_problem(http->send("POST", "/v1/orders", tenant(key + std::string(300, 'k')), order), 400,
                 "idempotency-key-invalid"));
  EXPECT_TRUE(
      is_problem(http->send("POST", "/v1/orders",
                            {{"Authorization", "Basic " + token}, {"Idempotency-Key", key}}, order),
                 401, "unauthenticated"));
  EXPECT_TRUE(has_status(
      http->send("POST", "/v1/orders",
                 {{"Authorization", "Bearer " + admin_token}, {"Idempotency-Key", key}}, order),
      403));
  EXPECT_TRUE(has_status(http->send("GET", "/v1/" + data, tenant()), 404));
  EXPECT_TRUE(has_status(admin("GET", "/_mock/stats?x=" + data, nullptr), 200));
  EXPECT_TRUE(has_status(admin("PUT", "/_mock/faults", {{"rules", {{{"fault", data}}}}}), 400));

  // Malformed HTTP: a header line without a colon, a key with DEL in it, a header block over
  // the limit.
  const std::string head = "POST /v1/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                           token + "\r\nContent-Type: application/json\r\n";
  EXPECT_TRUE(has_status(http->send_raw(head + "Idempotency-Key: " + key + "\r\n" + data +
                                        "\r\nContent-Length: 2\r\n\r\n{}"),
                         400));
  EXPECT_TRUE(has_status(http->send_raw(head + "Idempotency-Key: " + key + "\x7f" + data +
                                        "\r\nContent-Length: 2\r\n\r\n{}"),
                         400));
  EXPECT_TRUE(has_status(
      http->send_raw(head + "Idempotency-Key: " + key + "\r\nX-Data: " + std::string(20'000, 'x') +
                     data + "\r\nContent-Length: 2\r\n\r\n{}"),
      431));

  const auto output = stop_and_read_output();
  EXPECT_NE(output.find("idem-mock-server: stopped"), std::string::npos)
      << "the server's output was not captured:\n"
      << output;
  expect_no_marker(output);
}

TEST_F(LogHygiene, InjectedFaultsAndClientsThatVanishLeaveNoTokenKeyOrDataInTheServersOutput) {
  start();
  const auto order = order_with(data).dump();
  ASSERT_TRUE(has_status(
      admin("PUT", "/_mock/faults",
            fault_config({on_create("crash_during_processing", {{"times", 1}}),
                          on_create("status_after_commit", {{"status", 502}, {"times", 1}}),
                          on_create("drop_response_after_commit", {{"times", 1}}),
                          on_pay("provider_timeout", {{"times", 1}})})),
      200));
  http_client own{server->port()};  // a connection that the faults may reset
  EXPECT_FALSE(own.send("POST", "/v1/orders", tenant(key + "-1"), order).ok());  // crashed
  EXPECT_TRUE(has_status(
      own.send("POST", "/v1/orders", tenant(key + "-2"), order_with(data + "-2").dump()), 502));
  EXPECT_FALSE(own.send("POST", "/v1/orders", tenant(key + "-3"), order_with(data + "-3").dump())
                   .ok());  // the response was dropped
  auto created = own.send("POST", "/v1/orders", tenant(key + "-3"), order_with(data + "-3").dump());
  ASSERT_TRUE(has_status(created, 201));
  const auto order_path = "/v1/orders/" + created.res.json()["id"].get<std::string>();
  const json payment = {{"amount_minor", 1500}, {"currency", "EUR"}, {"payment_method", data}};
  EXPECT_TRUE(has_status(
      own.send("POST", order_path + "/payments", tenant(key + "-4"), payment.dump()), 504));

  // A client that resets its connection while its payment executes (its retry takes over the
  // record that the provider timeout left, and a delay holds it), and one that resets it halfway
  // through sending its body.
  const auto faults_fired = [&] {
    auto stats = admin("GET", "/_mock/stats", nullptr);
    return stats.ok() ? stats.res.json().value("faults_injected", -1) : -1;
  };
  const int fired = faults_fired();
  ASSERT_TRUE(has_status(
      admin("PUT", "/_mock/faults", only(on_pay("delay", {{"delay_ms", 1000}, {"times", 1}}))),
      200));
  boost::asio::io_context io;
  const auto send_bytes = [&](const std::string& bytes) {
    boost::asio::ip::tcp::socket socket(io);
    socket.connect({boost::asio::ip::make_address("127.0.0.1"), server->port()});
    boost::asio::write(socket, boost::asio::buffer(bytes));
    return socket;
  };
  const auto reset = [](boost::asio::ip::tcp::socket& socket) {
    socket.set_option(boost::asio::socket_base::linger(true, 0));
    socket.close();  // RST
  };
  const std::string head =
      "POST " + order_path + "/payments HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
      token + "\r\nContent-Type: application/json\r\nIdempotency-Key: " + key + "-4\r\n";
  auto paying = send_bytes(head + "Content-Length: " + std::to_string(payment.dump().size()) +
                           "\r\n\r\n" + payment.dump());
  ASSERT_TRUE(eventually([&] { return faults_fired() == fired + 1; }))
      << "the retried payment never reached its delay";
  reset(paying);
  ASSERT_TRUE(eventually([&] {
    auto order = own.send("GET", order_path, tenant());
    return order.ok() && order.res.status == 200 && order.res.json()["status"] == "PAID";
  })) << "the payment whose client went away never executed";
  auto halfway = send_bytes(head + "Content-Length: 1000\r\n\r\n{\"payment_method\":\"" + data);
  reset(halfway);

  expect_no_marker(stop_and_read_output());
}

// A handler that fails logs why; it must not log what the request held: a create (token, key
// and body) while another connection holds the write lock (answered 503 at once, issue 43), and
// a lookup by merchant_order_id (data in the query) whose table is gone.
TEST_F(LogHygiene, FailingHandlersLogWhyButNoTokenKeyOrData) {
  // No reaper or completer run meanwhile: they would only wait for the lock too.
  start({"--reaper-interval", "1h", "--completer-interval", "1h"});
  mock::database other(db_path);
  // A write fails while another connection holds the write lock.
  other.exec("BEGIN IMMEDIATE");
  EXPECT_TRUE(
      is_problem(http->send("POST", "/v1/orders", tenant(key), order_with(data).dump(), 60s), 503,
                 "unavailable"));
  other.exec("ROLLBACK");
  // A read is never blocked by a writer under WAL; it fails when its table is gone.
  other.exec("ALTER TABLE orders RENAME TO orders_moved_away");
  EXPECT_TRUE(
      is_problem(http->send("GET", "/v1/orders?merchant_order_id=m-" + data, tenant(), {}, 60s),
                 500, "internal"));
  other.exec("ALTER TABLE orders_moved_away RENAME TO orders");

  const auto output = stop_and_read_output();
  EXPECT_NE(output.find("GET /v1/orders failed: "), std::string::npos) << output;
  expect_no_marker(output);
}

}  // namespace
}  // namespace idem::kit
