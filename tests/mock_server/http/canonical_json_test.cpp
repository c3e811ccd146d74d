#include "mock_server/http/canonical_json.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace idem::mock {
namespace {

// Canonical form of `text`, or a marker that cannot be valid JSON when it does not parse.
std::string canon(std::string_view text) {
  auto value = parse_json(text);
  return value ? canonical_json(*value) : std::string{"<unparsable>"};
}

TEST(CanonicalJson, ParsesOneValueWithSurroundingWhitespace) {
  auto value = parse_json(" \n\t{\"a\": [1, true, null, \"x\"]} \r\n");
  ASSERT_TRUE(value.has_value());
  EXPECT_EQ((*value)["a"][3], "x");
}

TEST(CanonicalJson, ParsesScalarsAtTopLevel) {
  EXPECT_EQ(canon("42"), "42");
  EXPECT_EQ(canon("\"s\""), "\"s\"");
  EXPECT_EQ(canon("null"), "null");
}

TEST(CanonicalJson, MalformedInputIsRejectedWithoutThrowing) {
  for (std::string_view text : {"", "   ", "{", "{\"a\":}", "[1,]", "{'a':1}", "NaN", "01",
                                "{\"a\" 1}", "tru", "\"unterminated", "1E400"}) {
    EXPECT_FALSE(parse_json(text).has_value()) << text;
  }
}

TEST(CanonicalJson, TrailingGarbageIsRejected) {
  for (std::string_view text : {"{} x", "1 2", "{}{}", "[]]", "\"a\"\"b\""}) {
    EXPECT_FALSE(parse_json(text).has_value()) << text;
  }
}

TEST(CanonicalJson, InvalidUtf8IsRejected) {
  for (std::string_view text : {
           "\"\xff\"",          // never valid in UTF-8
           "\"\xc3\x28\"",      // lead byte followed by a non-continuation byte
           "\"\xc0\xaf\"",      // overlong encoding of '/'
           "\"\xed\xa0\x80\"",  // UTF-16 surrogate encoded as UTF-8
           "\"\xe2\x82\"",      // truncated sequence
           "\xff",              // invalid byte outside any string
       }) {
    EXPECT_FALSE(parse_json(text).has_value());
  }
}

TEST(CanonicalJson, LoneEscapedSurrogateIsRejected) {
  EXPECT_FALSE(parse_json("\"\\ud800\"").has_value());
  EXPECT_TRUE(parse_json("\"\\ud83d\\ude00\"").has_value());  // a proper pair is fine
}

TEST(CanonicalJson, LastOfDuplicateKeysWins) {
  auto value = parse_json(R"({"a": 1, "b": 0, "a": 2})");
  ASSERT_TRUE(value.has_value());
  EXPECT_EQ((*value)["a"], 2);
  EXPECT_EQ(canonical_json(*value), R"({"a":2,"b":0})");
}

TEST(CanonicalJson, KeysAreSortedAndWhitespaceIsDropped) {
  EXPECT_EQ(canon(R"({ "b" : 1, "a" : [ 3 , 2 , 1 ] })"), R"({"a":[3,2,1],"b":1})");
}

TEST(CanonicalJson, NestedObjectKeysAreSortedToo) {
  EXPECT_EQ(canon(R"({"z": {"y": 1, "x": [{"q": 1, "p": 2}]}})"),
            R"({"z":{"x":[{"p":2,"q":1}],"y":1}})");
}

TEST(CanonicalJson, KeysAreSortedByTheirUtf8Bytes) {
  // Byte order: 'B' (0x42) < 'a' (0x61) < "aa" < 'b' < U+00E9 (0xC3 0xA9).
  EXPECT_EQ(canon("{\"\xc3\xa9\":1,\"b\":1,\"aa\":1,\"a\":1,\"B\":1}"),
            "{\"B\":1,\"a\":1,\"aa\":1,\"b\":1,\"\xc3\xa9\":1}");
}

TEST(CanonicalJson, KeyOrderInTheInputDoesNotMatter) {
  EXPECT_EQ(canon(R"({"a":1,"b":{"c":2,"d":3}})"), canon(R"({"b":{"d":3,"c":2},"a":1})"));
}

TEST(CanonicalJson, ArrayOrderIsSignificant) {
  EXPECT_NE(canon("[1,2]"), canon("[2,1]"));
}

TEST(CanonicalJson, IntegerAndFloatSerializeDifferently) {
  EXPECT_EQ(canon("1"), "1");
  EXPECT_EQ(canon("1.0"), "1.0");
  EXPECT_EQ(canon(R"({"amount": 1})"), R"({"amount":1})");
  EXPECT_EQ(canon(R"({"amount": 1.0})"), R"({"amount":1.0})");
}

TEST(CanonicalJson, FloatsAreWrittenInTheirShortestRoundTripForm) {
  // "Numbers as parsed" means the parsed value: equal floats written differently agree.
  EXPECT_EQ(canon("1.50"), "1.5");
  EXPECT_EQ(canon("1e2"), "100.0");
  EXPECT_EQ(canon("0.1"), "0.1");
}

TEST(CanonicalJson, LargeIntegersKeepEveryDigit) {
  EXPECT_EQ(canon("18446744073709551615"), "18446744073709551615");
  EXPECT_EQ(canon("-9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(canon("9007199254740993"), "9007199254740993");  // not exact as a double
}

TEST(CanonicalJson, NonAsciiTextIsWrittenAsRawUtf8) {
  EXPECT_EQ(canon("\"\\u00e9\\u20ac\""), "\"\xc3\xa9\xe2\x82\xac\"");
  EXPECT_EQ(canon("\"\xc3\xa9\xe2\x82\xac\""), "\"\xc3\xa9\xe2\x82\xac\"");
  EXPECT_EQ(canon("\"\\ud83d\\ude00\""), "\"\xf0\x9f\x98\x80\"");
}

TEST(CanonicalJson, UnnecessaryEscapesAreRemoved) {
  EXPECT_EQ(canon(R"("\u0041\/")"), R"("A/")");
}

TEST(CanonicalJson, QuotesBackslashesAndControlCharactersStayEscaped) {
  EXPECT_EQ(canon(R"("q\"b\\n\n\u0001")"), R"("q\"b\\n\n\u0001")");
}

TEST(CanonicalJson, LeadingUtf8ByteOrderMarkIsIgnored) {
  // RFC 8259 section 8.1 lets a parser ignore a BOM; nlohmann does, and the canonical form
  // (hence the fingerprint) is then that of the text without it.
  EXPECT_EQ(canon("\xef\xbb\xbf{\"a\":1}"), R"({"a":1})");
}

}  // namespace
}  // namespace idem::mock
