// The SDK writes nothing on stdout or stderr (docs/SDK.md, Observability: "the SDK logs nothing
// itself"), so it can never put a token, a key or a payload in an app's logs, whatever happens:
// retries, a lost response and its replay, a rejection, a key mismatch, a refused connection, a
// refused TLS handshake, an intent left unresolved. The test sends this process's file
// descriptors 1 and 2 (C, C++, libcurl and OpenSSL alike) to a file while real clients run
// against the mock server (a child process, its own output elsewhere) and a TLS peer.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "idem/client.hpp"
#include "idem/orders.hpp"
#include "tests/idem/support/live_client.hpp"
#include "tests/idem/support/tls_test_pki.hpp"
#include "tests/support/http/api_client.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/support/temp_dir.hpp"

namespace idem {
namespace {

using namespace std::chrono_literals;
using test::live::live_options;
using test::live::on_create;
using test::live::submit_live;

// While it lives, whatever this process writes on file descriptors 1 and 2 goes to `path`
// instead; stop() puts them back and returns what was written.
class captured_output {
 public:
  explicit captured_output(std::string path) : path_(std::move(path)) {
    flush();
    saved_out_ = ::dup(STDOUT_FILENO);
    saved_err_ = ::dup(STDERR_FILENO);
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (saved_out_ < 0 || saved_err_ < 0 || fd < 0 || ::dup2(fd, STDOUT_FILENO) < 0 ||
        ::dup2(fd, STDERR_FILENO) < 0) {
      throw std::runtime_error("cannot capture the output");
    }
    ::close(fd);
  }
  ~captured_output() { (void)stop(); }
  captured_output(const captured_output&) = delete;
  captured_output& operator=(const captured_output&) = delete;

  std::string stop() {
    if (saved_out_ < 0) return {};
    flush();
    ::dup2(saved_out_, STDOUT_FILENO);
    ::dup2(saved_err_, STDERR_FILENO);
    ::close(saved_out_);
    ::close(saved_err_);
    saved_out_ = saved_err_ = -1;
    std::ostringstream text;
    text << std::ifstream(path_).rdbuf();
    return text.str();
  }

 private:
  static void flush() {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
  }

  std::string path_;
  int saved_out_ = -1;
  int saved_err_ = -1;
};

orders::order_request order_of(const std::string& merchant_order_id, const std::string& data) {
  return {.merchant_order_id = merchant_order_id,
          .customer_id = "c-" + data,
          .currency = "EUR",
          .amount_minor = 1500,
          .items = {{.sku = "s-" + data, .quantity = 3, .unit_price_minor = 500}}};
}

TEST(ClientLogHygiene, TheClientWritesNothingOnStdoutOrStderrWhateverHappens) {
  kit::temp_dir dir;
  kit::server_process server(
      {"--listen", "127.0.0.1:0", "--db", ":memory:", "--admin-token", kit::admin_token},
      dir.file("server.log"));
  kit::api_client admin{server.port()};
  test::tls::test_pki pki("IP:127.0.0.1");  // a CA the client does not trust
  test::tls::background_tls_peer tls(pki);

  auto options = live_options(server.port());
  options.credentials = bearer_token{"tok-secret-7d1e"};
  options.deadline = {.total = 3s, .lookup_reserve = 1s, .min_attempt = 100ms};
  auto refused = options;
  refused.base_url = test::live::url_of(kit::unused_port());
  auto untrusted = options;
  untrusted.base_url = "https://127.0.0.1:" + std::to_string(tls.port());
  const std::string data = "dat-secret-40c2";

  const auto retried = orders::create(order_of("m-1", data));
  const auto mismatch = intent::restore(retried.key(), retried.op(),
                                        orders::create(order_of("m-other", data)).payload());
  auto invalid = order_of("m-2", data);
  invalid.currency = "eur";
  const auto lost = orders::create(order_of("m-3", data));

  // Two 503s, then the answer lost after the commit, then its replay; then every write reset.
  ASSERT_NO_FATAL_FAILURE(admin.set_faults(
      kit::fault_config({on_create("status_before_processing", {{"status", 503}, {"times", 2}}),
                         on_create("drop_response_after_commit", {{"times", 1}})})));
  std::vector<outcome> outcomes;
  captured_output output(dir.file("client.out"));
  outcomes.push_back(submit_live(options, retried));
  outcomes.push_back(submit_live(options, mismatch));
  outcomes.push_back(submit_live(options, orders::create(invalid)));
  outcomes.push_back(submit_live(refused, orders::create(order_of("m-4", data))));
  outcomes.push_back(submit_live(untrusted, orders::create(order_of("m-5", data))));
  admin.set_faults(kit::only(on_create("reset_before_processing")));
  outcomes.push_back(submit_live(options, lost));
  const std::string written = output.stop();

  EXPECT_EQ(written, "");
  ASSERT_EQ(outcomes.size(), 6u);
  EXPECT_EQ(outcomes[0].kind(), outcome_kind::succeeded);
  EXPECT_TRUE(outcomes[0].replayed());
  EXPECT_EQ(outcomes[1].error(), "idempotency-key-mismatch");
  EXPECT_EQ(outcomes[2].kind(), outcome_kind::rejected);
  EXPECT_EQ(outcomes[2].status(), 400);
  EXPECT_EQ(outcomes[3].kind(), outcome_kind::not_sent);
  EXPECT_EQ(outcomes[4].kind(), outcome_kind::not_sent);
  EXPECT_EQ(outcomes[5].kind(), outcome_kind::unresolved);
}

}  // namespace
}  // namespace idem
