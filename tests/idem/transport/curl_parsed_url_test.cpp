// A request URL parsed once by libcurl's parser and kept with its easy handle
// (src/transport/curl_parsed_url.hpp): the same URL is not parsed again, another one replaces it,
// and a URL the parser rejects gives no handle (curl is then left to report its own error).

#include "transport/curl_parsed_url.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace idem::detail {
namespace {

std::string part(CURLU* url, CURLUPart which) {
  char* out = nullptr;
  if (curl_url_get(url, which, &out, 0) != CURLUE_OK) return "<none>";
  std::string s(out);
  curl_free(out);
  return s;
}

TEST(CurlParsedUrl, GivesTheUrlsPartsAsCurlParsesThem) {
  curl_parsed_url url;
  CURLU* h = url.parse("http://127.0.0.1:8080/v1/orders?merchant_order_id=m-1");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(part(h, CURLUPART_HOST), "127.0.0.1");
  EXPECT_EQ(part(h, CURLUPART_PORT), "8080");
  EXPECT_EQ(part(h, CURLUPART_PATH), "/v1/orders");
  EXPECT_EQ(part(h, CURLUPART_QUERY), "merchant_order_id=m-1");
}

TEST(CurlParsedUrl, TheSameUrlAgainIsTheSameParsedHandle) {
  curl_parsed_url url;
  CURLU* first = url.parse("https://api.example/v1/orders");
  ASSERT_NE(first, nullptr);
  // Changed behind its back: had it parsed again, the path would be back.
  ASSERT_EQ(curl_url_set(first, CURLUPART_PATH, "/changed", 0), CURLUE_OK);
  CURLU* again = url.parse("https://api.example/v1/orders");
  EXPECT_EQ(again, first);
  EXPECT_EQ(part(again, CURLUPART_PATH), "/changed");
}

TEST(CurlParsedUrl, AnotherUrlReplacesEveryPartOfTheLastOne) {
  curl_parsed_url url;
  ASSERT_NE(url.parse("https://user:pw@a.example:8443/one?q=1#frag"), nullptr);
  CURLU* h = url.parse("http://b.example/two");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(part(h, CURLUPART_URL), "http://b.example/two");
  EXPECT_EQ(part(h, CURLUPART_USER), "<none>");
  EXPECT_EQ(part(h, CURLUPART_QUERY), "<none>");
  EXPECT_EQ(part(h, CURLUPART_FRAGMENT), "<none>");
}

TEST(CurlParsedUrl, ParsesAsCurlParsesItsUrlOption) {
  curl_parsed_url url;
  // No scheme: guessed, as CURLOPT_URL's is.
  CURLU* guessed = url.parse("api.example/v1/orders");
  ASSERT_NE(guessed, nullptr);
  EXPECT_EQ(part(guessed, CURLUPART_SCHEME), "http");
  // A scheme curl does not speak still parses: CURLOPT_PROTOCOLS_STR refuses it later, with
  // the error it always gave.
  EXPECT_NE(url.parse("file:///etc/passwd"), nullptr);
  // Dot segments go, as they do from CURLOPT_URL (no CURLOPT_PATH_AS_IS).
  CURLU* dots = url.parse("http://api.example/a/../b");
  ASSERT_NE(dots, nullptr);
  EXPECT_EQ(part(dots, CURLUPART_PATH), "/b");
}

TEST(CurlParsedUrl, AUrlTheParserRejectsGivesNoHandleAndTheNextOneParses) {
  curl_parsed_url url;
  CURLU* first = url.parse("http://a.example/x");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(url.parse("http://a.example:99999/x"), nullptr);  // no such port
  EXPECT_EQ(url.parse(""), nullptr);
  // The handle an easy handle may still point at (its last request's) is not freed by a
  // rejected URL: reading it is no use after free (ASan would say so).
  char* host = nullptr;
  if (curl_url_get(first, CURLUPART_HOST, &host, 0) == CURLUE_OK) curl_free(host);
  CURLU* again = url.parse("http://a.example/x");  // the same string as before the rejection
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again, first);  // parsed again in place
  EXPECT_EQ(part(again, CURLUPART_PATH), "/x");
}

TEST(CurlParsedUrl, AUrlWithoutSchemeIsNeverReadAgainstTheLastOne) {
  // curl_url_set resolves a URL without a scheme against the URL its handle holds, as a
  // relative reference; CURLOPT_URL guesses the scheme of a host instead, and refuses a path.
  curl_parsed_url url;
  ASSERT_NE(url.parse("https://a.example:8443/x?q=1"), nullptr);
  CURLU* guessed = url.parse("b.example/y");
  ASSERT_NE(guessed, nullptr);
  EXPECT_EQ(part(guessed, CURLUPART_URL), "http://b.example/y");
  ASSERT_NE(url.parse("https://a.example/x"), nullptr);
  EXPECT_EQ(url.parse("/only/a/path"), nullptr);
  ASSERT_NE(url.parse("https://a.example/x"), nullptr);
  EXPECT_EQ(url.parse(""), nullptr);
  ASSERT_NE(url.parse("https://a.example/x"), nullptr);
  EXPECT_EQ(url.parse("?q=2"), nullptr);
}

TEST(CurlParsedUrl, MovesWithItsHandle) {
  curl_parsed_url url;
  CURLU* h = url.parse("http://a.example/x");
  curl_parsed_url moved(std::move(url));
  EXPECT_EQ(moved.parse("http://a.example/x"), h);
  curl_parsed_url assigned;
  assigned = std::move(moved);
  EXPECT_EQ(assigned.parse("http://a.example/x"), h);
}

}  // namespace
}  // namespace idem::detail
