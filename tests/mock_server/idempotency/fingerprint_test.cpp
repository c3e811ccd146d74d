#include "mock_server/idempotency/fingerprint.hpp"

#include <gtest/gtest.h>

#include "mock_server/http/canonical_json.hpp"
#include "tests/mock_server/support/parsed_json.hpp"

namespace idem::mock {
namespace {

using test::parsed_json;

TEST(Sha256Hex, MatchesKnownAnswerVectors) {
  // FIPS 180-2 appendix B.1 and the empty message.
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Hex, HashesEmbeddedNulBytes) {
  using namespace std::string_view_literals;
  EXPECT_NE(sha256_hex("a\0b"sv), sha256_hex("a"sv));
}

TEST(RequestFingerprint, IsSha256OfMethodPathAndCanonicalJsonJoinedByNewlines) {
  const auto body = parsed_json(R"({"b": 2, "a": 1})");
  EXPECT_EQ(request_fingerprint("POST", "/v1/orders", body),
            sha256_hex("POST\n/v1/orders\n{\"a\":1,\"b\":2}"));
}

TEST(RequestFingerprint, IgnoresKeyOrderAndWhitespace) {
  EXPECT_EQ(
      request_fingerprint("POST", "/v1/orders", parsed_json(R"({"a":1,"b":[1,2]})")),
      request_fingerprint("POST", "/v1/orders", parsed_json(" { \"b\" : [1, 2], \"a\" : 1 } ")));
}

TEST(RequestFingerprint, IntegerAndFloatBodiesDiffer) {
  EXPECT_NE(request_fingerprint("POST", "/v1/orders", parsed_json(R"({"amount_minor":1})")),
            request_fingerprint("POST", "/v1/orders", parsed_json(R"({"amount_minor":1.0})")));
}

TEST(RequestFingerprint, DependsOnMethodPathAndBody) {
  const auto body = parsed_json(R"({"a":1})");
  const auto base = request_fingerprint("POST", "/v1/orders/ord_1/payments", body);
  EXPECT_NE(base, request_fingerprint("PUT", "/v1/orders/ord_1/payments", body));
  EXPECT_NE(base, request_fingerprint("POST", "/v1/orders/ord_2/payments", body));
  EXPECT_NE(base,
            request_fingerprint("POST", "/v1/orders/ord_1/payments", parsed_json(R"({"a":2})")));
}

TEST(RequestFingerprint, IsLowerCaseHexOf64Characters) {
  const auto fp = request_fingerprint("POST", "/v1/orders", parsed_json("{}"));
  ASSERT_EQ(fp.size(), 64u);
  EXPECT_EQ(fp.find_first_not_of("0123456789abcdef"), std::string::npos);
}

}  // namespace
}  // namespace idem::mock
