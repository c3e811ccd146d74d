#include "mock_server/http/key_header.hpp"

#include <gtest/gtest.h>

#include <string>

namespace idem::mock {
namespace {

request with_headers(header_list headers) {
  request req;
  req.method = "POST";
  req.target = "/v1/orders";
  req.headers = std::move(headers);
  return req;
}

std::variant<std::string, key_error> parse(std::string value) {
  return parse_idempotency_key(with_headers({{"Idempotency-Key", std::move(value)}}));
}

bool is_invalid(const std::variant<std::string, key_error>& result) {
  return std::holds_alternative<key_error>(result) &&
         std::get<key_error>(result) == key_error::invalid;
}

std::string key_of(const std::variant<std::string, key_error>& result) {
  return std::holds_alternative<std::string>(result) ? std::get<std::string>(result)
                                                     : std::string{"<error>"};
}

TEST(KeyHeader, AbsentHeaderIsMissing) {
  auto result = parse_idempotency_key(with_headers({{"Content-Type", "application/json"}}));
  ASSERT_TRUE(std::holds_alternative<key_error>(result));
  EXPECT_EQ(std::get<key_error>(result), key_error::missing);
}

TEST(KeyHeader, QuotedAndBareFormsAreTheSameKey) {
  EXPECT_EQ(key_of(parse("abc")), "abc");
  EXPECT_EQ(key_of(parse("\"abc\"")), "abc");
}

TEST(KeyHeader, UuidIsAcceptedBareEvenThoughItStartsWithADigit) {
  EXPECT_EQ(key_of(parse("0190b5f2-7c1e-7a3b-9d4f-0123456789ab")),
            "0190b5f2-7c1e-7a3b-9d4f-0123456789ab");
}

TEST(KeyHeader, HeaderNameIsCaseInsensitive) {
  EXPECT_EQ(key_of(parse_idempotency_key(with_headers({{"idempotency-key", "k1"}}))), "k1");
}

TEST(KeyHeader, SurroundingOptionalWhitespaceIsIgnored) {
  EXPECT_EQ(key_of(parse(" \tabc\t ")), "abc");
  EXPECT_EQ(key_of(parse("  \"abc\"  ")), "abc");
}

TEST(KeyHeader, EmptyValueIsInvalidNotMissing) {
  EXPECT_TRUE(is_invalid(parse("")));
  EXPECT_TRUE(is_invalid(parse("   ")));
  EXPECT_TRUE(is_invalid(parse("\"\"")));
}

TEST(KeyHeader, RepeatedHeaderIsInvalidEvenWithEqualValues) {
  EXPECT_TRUE(is_invalid(parse_idempotency_key(
      with_headers({{"Idempotency-Key", "abc"}, {"idempotency-key", "abc"}}))));
}

TEST(KeyHeader, KeyOf255CharactersIsAcceptedAnd256IsInvalid) {
  EXPECT_EQ(key_of(parse(std::string(255, 'k'))), std::string(255, 'k'));
  EXPECT_TRUE(is_invalid(parse(std::string(256, 'k'))));
}

TEST(KeyHeader, LengthLimitAppliesAfterUnquoting) {
  EXPECT_EQ(key_of(parse("\"" + std::string(255, 'k') + "\"")), std::string(255, 'k'));
  EXPECT_TRUE(is_invalid(parse("\"" + std::string(256, 'k') + "\"")));
}

TEST(KeyHeader, SpaceInsideIsInvalidInBothForms) {
  EXPECT_TRUE(is_invalid(parse("a b")));
  EXPECT_TRUE(is_invalid(parse("\"a b\"")));
  EXPECT_TRUE(is_invalid(parse("\" abc\"")));
}

TEST(KeyHeader, ControlCharactersAreInvalidEvenInsideQuotes) {
  EXPECT_TRUE(is_invalid(parse(std::string{"a\x01z"})));
  EXPECT_TRUE(is_invalid(parse(std::string{"\"a\tz\""})));
  EXPECT_TRUE(is_invalid(parse(std::string{"\"a\x7fz\""})));
}

TEST(KeyHeader, NonAsciiBytesAreInvalid) {
  EXPECT_TRUE(is_invalid(parse("caf\xc3\xa9")));
  EXPECT_TRUE(is_invalid(parse("\"caf\xc3\xa9\"")));
}

TEST(KeyHeader, EveryVisibleAsciiCharacterIsAllowed) {
  std::string all;
  for (char c = 0x21; c <= 0x7E; ++c) {
    if (c != '"') all.push_back(c);  // a bare value must not start with a quote
  }
  EXPECT_EQ(key_of(parse(all)), all);
}

TEST(KeyHeader, QuotedFormUnescapesQuoteAndBackslash) {
  EXPECT_EQ(key_of(parse(R"("a\"b\\c")")), R"(a"b\c)");
}

TEST(KeyHeader, QuotedAndBareFormsAgreeOnKeysWithSpecialCharacters) {
  EXPECT_EQ(key_of(parse(R"("a\"b")")), key_of(parse(R"(a"b)")));
}

TEST(KeyHeader, UnknownEscapeInQuotedFormIsInvalid) {
  EXPECT_TRUE(is_invalid(parse(R"("a\nb")")));
  EXPECT_TRUE(is_invalid(parse(R"("abc\")")));  // the escape swallows the closing quote
}

TEST(KeyHeader, UnterminatedQuoteIsInvalid) {
  EXPECT_TRUE(is_invalid(parse("\"abc")));
  EXPECT_TRUE(is_invalid(parse("\"")));
}

TEST(KeyHeader, TextAfterTheClosingQuoteIsInvalid) {
  EXPECT_TRUE(is_invalid(parse("\"abc\"def")));
  EXPECT_TRUE(is_invalid(parse("\"abc\" \"def\"")));
  EXPECT_TRUE(is_invalid(parse("\"abc\";param=1")));
}

}  // namespace
}  // namespace idem::mock
