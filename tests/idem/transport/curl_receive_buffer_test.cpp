// The receive buffer of the transport's easy handles (src/transport/curl_request.hpp): a handle
// reads into the small buffer until an answer does not fit in one, then keeps the large one, and
// every answer arrives whole either way. The requests of a test share the pool's one handle,
// each run with curl_easy_perform against the mock server's HTTP front end (on a thread of its
// own). The pool says which buffer the handle went back with, and curl's debug callback how
// many bytes each read took in (no more than the buffer holds).

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/asio/awaitable.hpp>
#include <charconv>
#include <string>
#include <string_view>

#include "tests/support/servers/in_process_http_server.hpp"
#include "transport/curl_handle_pool.hpp"
#include "transport/curl_request.hpp"

namespace idem::detail {
namespace {

// Answers GET /bytes/N with N bytes of body ('a' to 'z' over and over).
mock::request_handler sized_answers() {
  return [](mock::request req) -> boost::asio::awaitable<mock::reply> {
    std::size_t n = 0;
    const std::string_view path = req.path();
    const std::string_view digits = path.substr(path.rfind('/') + 1);
    std::from_chars(digits.data(), digits.data() + digits.size(), n);
    mock::reply r;
    r.res.status = 200;
    r.res.body.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
      r.res.body.push_back(static_cast<char>('a' + i % 26));
    co_return r;
  };
}

class CurlReceiveBuffer : public ::testing::Test {
 protected:
  void start(mock::request_handler h = sized_answers()) { server_.start(std::move(h), {}); }

  // An answer, and the most body bytes curl handed over from one read (curl's debug callback
  // sees each read's bytes as they are: no more than the handle's receive buffer holds).
  struct got {
    transport_result result;
    std::size_t largest_read = 0;
  };

  // GETs N bytes on a handle of the pool; the handle goes back when the request goes.
  got get(std::size_t n) {
    http_request req;
    req.method = "GET";
    req.url = "http://127.0.0.1:" + std::to_string(server_.port()) + "/bytes/" + std::to_string(n);
    req.timeout = std::chrono::seconds{10};
    curl_request r(std::move(req), options_, proxy_, pool_);
    EXPECT_FALSE(r.setup_error()) << r.setup_error().message();
    got out;
    curl_easy_setopt(r.easy(), CURLOPT_DEBUGFUNCTION, &note_read);
    curl_easy_setopt(r.easy(), CURLOPT_DEBUGDATA, static_cast<void*>(&out.largest_read));
    curl_easy_setopt(r.easy(), CURLOPT_VERBOSE, 1L);
    out.result = r.finish(curl_easy_perform(r.easy()));
    // The handle stays in the pool: nothing of it may point here any more.
    curl_easy_setopt(r.easy(), CURLOPT_VERBOSE, 0L);
    curl_easy_setopt(r.easy(), CURLOPT_DEBUGFUNCTION, nullptr);
    curl_easy_setopt(r.easy(), CURLOPT_DEBUGDATA, nullptr);
    return out;
  }

  static int note_read(CURL*, curl_infotype type, char*, std::size_t size, void* largest) {
    auto& l = *static_cast<std::size_t*>(largest);
    if (type == CURLINFO_DATA_IN) l = std::max(l, size);
    return 0;
  }

  // Whether the handle kept in the pool has the large buffer (it stays kept).
  bool kept_handle_is_large() {
    auto h = pool_.take();
    EXPECT_FALSE(h.fresh);
    const bool large = h.large_buffer;
    pool_.give_back(h.easy, std::move(h.url), h.large_buffer);
    return large;
  }

  static void expect_body(const got& g, std::size_t n) {
    const transport_result& r = g.result;
    ASSERT_FALSE(r.ec) << r.ec.message();
    EXPECT_EQ(r.response.status, 200);
    ASSERT_EQ(r.response.body.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
      if (r.response.body[i] != static_cast<char>('a' + i % 26)) {
        ADD_FAILURE() << "byte " << i << " of " << n << " differs";
        return;
      }
    }
  }

  kit::in_process_http_server server_;
  curl_transport_options options_;
  curl_proxy_settings proxy_ =
      curl_proxy_settings::decide(proxy_options{.ignore_environment = true});
  curl_handle_pool pool_{1};  // one handle, reused by every request of a test
};

TEST_F(CurlReceiveBuffer, AHandleThatOnlySawSmallAnswersKeepsTheSmallBuffer) {
  start();
  expect_body(get(100), 100);
  EXPECT_FALSE(kept_handle_is_large());
  expect_body(get(300), 300);
  EXPECT_FALSE(kept_handle_is_large());
  EXPECT_EQ(pool_.made(), 1u);
}

TEST_F(CurlReceiveBuffer, AnAnswerLargerThanTheSmallBufferArrivesWholeAndTheHandleGrows) {
  start();
  // 40 reads of the small buffer at least, and the answer is still the answer.
  const std::size_t n = 40 * static_cast<std::size_t>(small_receive_buffer);
  const auto first = get(n);
  expect_body(first, n);
  EXPECT_GT(first.largest_read, 0u);
  EXPECT_LE(first.largest_read, static_cast<std::size_t>(small_receive_buffer));
  EXPECT_TRUE(kept_handle_is_large());
  // The grown handle reads the next answers (small or large) in its large buffer.
  expect_body(get(100), 100);
  EXPECT_TRUE(kept_handle_is_large());
  // Loopback hands over what the server wrote in reads of many KiB: the buffer is curl's.
  const std::size_t big = 3 * static_cast<std::size_t>(large_receive_buffer) + 17;
  const auto last = get(big);
  expect_body(last, big);
  EXPECT_GT(last.largest_read, static_cast<std::size_t>(small_receive_buffer));
  EXPECT_TRUE(kept_handle_is_large());
  EXPECT_EQ(pool_.made(), 1u);
}

TEST_F(CurlReceiveBuffer, AHeaderBlockLargerThanTheSmallBufferCountsToo) {
  // The body fits; the header block alone (the server's fields and a long one of ours) does
  // not: the answer took more than one read.
  start([](mock::request) -> boost::asio::awaitable<mock::reply> {
    mock::reply r;
    r.res.status = 200;
    r.res.set_header("X-Long", std::string(2 * small_receive_buffer, 'h'));
    r.res.body = "{}";
    co_return r;
  });
  const auto r = get(0).result;
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.body, "{}");
  const std::string* long_field = r.response.header("X-Long");
  ASSERT_NE(long_field, nullptr);
  EXPECT_EQ(long_field->size(), 2u * static_cast<std::size_t>(small_receive_buffer));
  EXPECT_TRUE(kept_handle_is_large());
}

}  // namespace
}  // namespace idem::detail
