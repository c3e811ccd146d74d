// A request's header fields as curl's list (src/transport/curl_header_list.hpp): a value with a CR,
// LF or NUL anywhere is refused (it would end the line and let the rest start another), whatever
// its length and wherever the byte sits, and every other byte is the value's; what curl would add
// to a post of its own is taken away, only where curl would add it.

#include "transport/curl_header_list.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "idem/transport_error.hpp"

namespace idem::detail {
namespace {

std::vector<std::string> lines(curl_slist* l) {
  std::vector<std::string> out;
  for (; l != nullptr; l = l->next)
    out.emplace_back(l->data);
  return out;
}

TEST(CurlHeaderList, ALineBreakOrNulAnywhereInAValueIsRefused) {
  // Lengths around the eight-byte words the check reads, the byte at every position.
  for (const char bad : {'\r', '\n', '\0'}) {
    for (std::size_t n = 1; n <= 40; ++n) {
      for (std::size_t at = 0; at < n; ++at) {
        std::string value(n, 'v');
        value[at] = bad;
        curl_header_list list;
        EXPECT_EQ(list.assign({{"X-Key", value}}, {}, std::nullopt),
                  transport_errc::invalid_request)
            << "byte " << static_cast<int>(bad) << " at " << at << " of " << n;
        EXPECT_EQ(list.get(), nullptr);
      }
    }
  }
}

TEST(CurlHeaderList, EveryOtherByteIsTheValuesOwn) {
  // Bytes next to the refused ones, and bytes whose high bit is set (what a word-wide check
  // could mistake for a match), at every position of values of every length up to 40.
  for (const unsigned char fine :
       {0x01, 0x09, 0x0b, 0x0c, 0x0e, 0x1f, 0x20, 0x7f, 0x80, 0x8a, 0x8d, 0xff}) {
    for (std::size_t n = 1; n <= 40; ++n) {
      for (std::size_t at = 0; at < n; ++at) {
        std::string value(n, 'v');
        value[at] = static_cast<char>(fine);
        curl_header_list list;
        ASSERT_FALSE(list.assign({{"X-Key", value}}, {}, std::nullopt))
            << "byte " << static_cast<int>(fine) << " at " << at << " of " << n;
        ASSERT_NE(list.get(), nullptr);
        EXPECT_EQ(std::string(list.get()->data), "X-Key: " + value);
      }
    }
  }
}

TEST(CurlHeaderList, TheUserAgentIsCheckedLikeAnyValue) {
  curl_header_list list;
  EXPECT_EQ(list.assign({{"Accept", "application/json"}}, "app/1 (build 20261130)\r\nX-Evil: 1",
                        std::nullopt),
            transport_errc::invalid_request);
  EXPECT_EQ(list.get(), nullptr);
  ASSERT_FALSE(
      list.assign({{"Accept", "application/json"}}, "app/1 (build 20261130)", std::nullopt));
  EXPECT_EQ(lines(list.get()), (std::vector<std::string>{"Accept: application/json",
                                                         "User-Agent: app/1 (build 20261130)"}));
  // The request's own User-Agent (any case) replaces it.
  ASSERT_FALSE(list.assign({{"user-agent", "shop/2"}}, "app/1", std::nullopt));
  EXPECT_EQ(lines(list.get()), (std::vector<std::string>{"user-agent: shop/2"}));
}

TEST(CurlHeaderList, WhatCurlWouldAddToAPostIsTakenAwayWhereItWould) {
  curl_header_list list;
  // No body: curl adds neither a content type nor an Expect.
  ASSERT_FALSE(list.assign({{"Accept", "application/json"}}, {}, std::nullopt));
  EXPECT_EQ(lines(list.get()), (std::vector<std::string>{"Accept: application/json"}));
  // A small body (and an empty one): curl would label it a form, never ask to continue.
  for (const std::size_t bytes : {0, 250, 1024}) {
    ASSERT_FALSE(list.assign({{"Accept", "application/json"}}, {}, bytes));
    EXPECT_EQ(lines(list.get()),
              (std::vector<std::string>{"Accept: application/json", "Content-Type:"}))
        << bytes;
  }
  ASSERT_FALSE(list.assign({{"Content-Type", "application/json"}}, {}, std::size_t{250}));
  EXPECT_EQ(lines(list.get()), (std::vector<std::string>{"Content-Type: application/json"}));
  // Past 1,024 bytes (curl's threshold before 7.69, 1 MiB since): no Expect either.
  ASSERT_FALSE(list.assign({{"content-type", "application/json"}}, {}, std::size_t{1025}));
  EXPECT_EQ(lines(list.get()),
            (std::vector<std::string>{"content-type: application/json", "Expect:"}));
  ASSERT_FALSE(list.assign({{"Expect", "100-continue"}}, {}, std::size_t{2} << 20));
  EXPECT_EQ(lines(list.get()), (std::vector<std::string>{"Expect: 100-continue", "Content-Type:"}));
  // Nothing at all: no list.
  ASSERT_FALSE(list.assign({}, {}, std::nullopt));
  EXPECT_EQ(list.get(), nullptr);
}

}  // namespace
}  // namespace idem::detail
