#include "mock_server/orders/order_validation.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mock_server/http/canonical_json.hpp"
#include "tests/mock_server/support/parsed_json.hpp"

namespace idem::mock {
namespace {

using test::parsed_json;

using json = nlohmann::json;

json valid_order() {
  return parsed_json(R"({"merchant_order_id": "mo-1", "customer_id": "cus-1", "currency": "EUR",
                    "amount_minor": 1500,
                    "items": [{"sku": "A", "quantity": 2, "unit_price_minor": 500},
                              {"sku": "B", "quantity": 1, "unit_price_minor": 500}]})");
}

std::vector<std::string> fields_of(const std::vector<field_error>& errors) {
  std::vector<std::string> fields;
  for (const auto& e : errors)
    fields.push_back(e.field);
  return fields;
}

std::vector<std::string> order_errors_with(const json::json_pointer& where, json value) {
  json body = valid_order();
  body[where] = std::move(value);
  return fields_of(validate_create_order(body));
}

using fields = std::vector<std::string>;

TEST(CreateOrderValidation, ValidOrderHasNoErrors) {
  EXPECT_TRUE(validate_create_order(valid_order()).empty());
}

TEST(CreateOrderValidation, OrderBuiltInCppWithSignedIntegersIsValid) {
  // Values built from `int` are number_integer, not number_unsigned; both are integers.
  const json body = {
      {"merchant_order_id", "mo-1"},
      {"customer_id", "cus-1"},
      {"currency", "USD"},
      {"amount_minor", 300},
      {"items", json::array({{{"sku", "A"}, {"quantity", 3}, {"unit_price_minor", 100}}})}};
  EXPECT_TRUE(validate_create_order(body).empty());
}

TEST(CreateOrderValidation, UnknownFieldsAreAllowed) {
  json body = valid_order();
  body["note"] = "gift";
  body["items"][0]["colour"] = "red";
  EXPECT_TRUE(validate_create_order(body).empty());
}

TEST(CreateOrderValidation, NonObjectBodyIsASingleBodyError) {
  for (const char* text : {"[]", "\"order\"", "null", "42"}) {
    EXPECT_EQ(fields_of(validate_create_order(parsed_json(text))), fields{"body"}) << text;
  }
}

TEST(CreateOrderValidation, EveryMissingFieldIsReported) {
  const auto errors = validate_create_order(json::object());
  EXPECT_EQ(fields_of(errors),
            (fields{"merchant_order_id", "customer_id", "currency", "amount_minor", "items"}));
  for (const auto& e : errors)
    EXPECT_EQ(e.message, "is required");
}

TEST(CreateOrderValidation, WholeFloatAmountIsNotAnInteger) {
  EXPECT_EQ(order_errors_with(json::json_pointer("/amount_minor"), parsed_json("1500.0")),
            fields{"amount_minor"});
  EXPECT_EQ(order_errors_with(json::json_pointer("/amount_minor"), parsed_json("1.5e3")),
            fields{"amount_minor"});
}

TEST(CreateOrderValidation, StringAndBooleanAmountsAreNotIntegers) {
  EXPECT_EQ(order_errors_with(json::json_pointer("/amount_minor"), "1500"), fields{"amount_minor"});
  EXPECT_EQ(order_errors_with(json::json_pointer("/amount_minor"), true), fields{"amount_minor"});
}

TEST(CreateOrderValidation, AmountMustBePositive) {
  EXPECT_EQ(order_errors_with(json::json_pointer("/amount_minor"), parsed_json("0")),
            fields{"amount_minor"});
  EXPECT_EQ(order_errors_with(json::json_pointer("/amount_minor"), parsed_json("-1500")),
            fields{"amount_minor"});
}

TEST(CreateOrderValidation, AmountUpTo2Pow53Minus1IsAcceptedAndAboveIsNot) {
  auto body = parsed_json(R"({"merchant_order_id": "m", "customer_id": "c", "currency": "EUR",
      "amount_minor": 9007199254740991,
      "items": [{"sku": "A", "quantity": 1, "unit_price_minor": 9007199254740991}]})");
  EXPECT_TRUE(validate_create_order(body).empty());

  body["amount_minor"] = parsed_json("9007199254740992");
  EXPECT_EQ(fields_of(validate_create_order(body)), fields{"amount_minor"});
  body["amount_minor"] = parsed_json("18446744073709551615");  // uint64 max must not wrap negative
  EXPECT_EQ(fields_of(validate_create_order(body)), fields{"amount_minor"});
}

TEST(CreateOrderValidation, CurrencyMustBeThreeCapitalLetters) {
  EXPECT_TRUE(order_errors_with(json::json_pointer("/currency"), "JPY").empty());
  for (const json& bad : {json("eur"), json("EURO"), json("EU"), json("E1R"), json(""),
                          json("\xc3\x89UR"), json(978)}) {
    EXPECT_EQ(order_errors_with(json::json_pointer("/currency"), bad), fields{"currency"})
        << bad.dump();
  }
}

TEST(CreateOrderValidation, IdsMustBeStringsOf1To255Characters) {
  for (const char* id_field : {"/merchant_order_id", "/customer_id", "/items/0/sku"}) {
    const json::json_pointer where{id_field};
    EXPECT_TRUE(order_errors_with(where, std::string(255, 'x')).empty()) << id_field;
    EXPECT_EQ(order_errors_with(where, std::string(256, 'x')).size(), 1u) << id_field;
    EXPECT_EQ(order_errors_with(where, "").size(), 1u) << id_field;
    EXPECT_EQ(order_errors_with(where, 12345).size(), 1u) << id_field;
  }
}

TEST(CreateOrderValidation, IdLengthCountsCharactersNotBytes) {
  std::string two_byte_chars;
  for (int i = 0; i < 255; ++i)
    two_byte_chars += "\xc3\xa9";  // 255 characters, 510 bytes
  EXPECT_TRUE(order_errors_with(json::json_pointer("/merchant_order_id"), two_byte_chars).empty());
  EXPECT_EQ(order_errors_with(json::json_pointer("/merchant_order_id"), two_byte_chars + "x"),
            fields{"merchant_order_id"});
}

TEST(CreateOrderValidation, ItemsMustBeANonEmptyArray) {
  EXPECT_EQ(order_errors_with(json::json_pointer("/items"), json::array()), fields{"items"});
  EXPECT_EQ(order_errors_with(json::json_pointer("/items"), json::object()), fields{"items"});
}

TEST(CreateOrderValidation, ItemErrorsNameTheItemIndex) {
  json body = valid_order();
  body["items"][1]["quantity"] = 0;
  body["items"].push_back("not an object");
  EXPECT_EQ(fields_of(validate_create_order(body)), (fields{"items[1].quantity", "items[2]"}));
}

TEST(CreateOrderValidation, MissingItemFieldsAreReported) {
  json body = valid_order();
  body["items"][0] = json::object();
  EXPECT_EQ(fields_of(validate_create_order(body)),
            (fields{"items[0].sku", "items[0].quantity", "items[0].unit_price_minor"}));
}

TEST(CreateOrderValidation, QuantityMustBeAPositiveInteger) {
  for (const json& bad :
       {parsed_json("0"), parsed_json("-1"), parsed_json("2.0"), json(true), json("2")}) {
    EXPECT_EQ(order_errors_with(json::json_pointer("/items/0/quantity"), bad),
              fields{"items[0].quantity"})
        << bad.dump();
  }
}

TEST(CreateOrderValidation, ZeroUnitPriceIsAllowedAndNegativeIsNot) {
  json body = valid_order();
  body["items"].push_back({{"sku", "FREE"}, {"quantity", 1}, {"unit_price_minor", 0}});
  EXPECT_TRUE(validate_create_order(body).empty());
  body["items"][2]["unit_price_minor"] = -1;
  EXPECT_EQ(fields_of(validate_create_order(body)), fields{"items[2].unit_price_minor"});
}

TEST(CreateOrderValidation, AmountMustEqualTheSumOfTheLines) {
  json body = valid_order();
  body["amount_minor"] = 1499;
  const auto errors = validate_create_order(body);
  ASSERT_EQ(fields_of(errors), fields{"amount_minor"});
  EXPECT_NE(errors[0].message.find("1500"), std::string::npos) << errors[0].message;
}

TEST(CreateOrderValidation, SumIsNotComparedWhenAnItemIsInvalid) {
  json body = valid_order();
  body["items"][0]["unit_price_minor"] = "500";
  EXPECT_EQ(fields_of(validate_create_order(body)), fields{"items[0].unit_price_minor"});
}

TEST(CreateOrderValidation, HugeLineTotalsAreAMismatchNotAnOverflow) {
  // (2^53-1)^2 and 2^52 * 2^52 are far beyond int64: a naive product would overflow.
  auto body = parsed_json(R"({"merchant_order_id": "m", "customer_id": "c", "currency": "EUR",
      "amount_minor": 1,
      "items": [{"sku": "A", "quantity": 9007199254740991, "unit_price_minor": 9007199254740991},
                {"sku": "B", "quantity": 4503599627370496, "unit_price_minor": 4503599627370496}]})");
  EXPECT_EQ(fields_of(validate_create_order(body)), fields{"amount_minor"});
}

TEST(CreateOrderValidation, WrappedProductCannotFakeAMatchingSum) {
  // 2^32 * 2^32 wraps to 0 in 64-bit arithmetic, which would make the sum look like 5.
  auto body = parsed_json(R"({"merchant_order_id": "m", "customer_id": "c", "currency": "EUR",
      "amount_minor": 5,
      "items": [{"sku": "A", "quantity": 4294967296, "unit_price_minor": 4294967296},
                {"sku": "B", "quantity": 1, "unit_price_minor": 5}]})");
  EXPECT_EQ(fields_of(validate_create_order(body)), fields{"amount_minor"});
}

TEST(CreateOrderValidation, SumExactlyAtTheMaximumIsAccepted) {
  auto body = parsed_json(R"({"merchant_order_id": "m", "customer_id": "c", "currency": "EUR",
      "amount_minor": 9007199254740991,
      "items": [{"sku": "A", "quantity": 1, "unit_price_minor": 4503599627370496},
                {"sku": "B", "quantity": 1, "unit_price_minor": 4503599627370495}]})");
  EXPECT_TRUE(validate_create_order(body).empty());
  body["items"][1]["unit_price_minor"] = parsed_json("4503599627370496");  // one over
  EXPECT_EQ(fields_of(validate_create_order(body)), fields{"amount_minor"});
}

TEST(CreateOrderValidation, SeveralErrorsAreReportedTogether) {
  json body = valid_order();
  body["currency"] = "eur";
  body.erase("customer_id");
  body["items"][0]["sku"] = "";
  EXPECT_EQ(fields_of(validate_create_order(body)),
            (fields{"customer_id", "currency", "items[0].sku"}));
}

json valid_payment() {
  return parsed_json(R"({"amount_minor": 1500, "currency": "EUR", "payment_method": "card"})");
}

TEST(PaymentValidation, ValidPaymentHasNoErrors) {
  EXPECT_TRUE(validate_payment(valid_payment()).empty());
}

TEST(PaymentValidation, EveryMissingFieldIsReported) {
  EXPECT_EQ(fields_of(validate_payment(json::object())),
            (fields{"amount_minor", "currency", "payment_method"}));
}

TEST(PaymentValidation, NonObjectBodyIsASingleBodyError) {
  EXPECT_EQ(fields_of(validate_payment(json::array())), fields{"body"});
}

TEST(PaymentValidation, AmountFollowsTheSameIntegerRules) {
  for (const json& bad : {parsed_json("1500.0"), parsed_json("0"), parsed_json("9007199254740992"),
                          json(false), json("1500")}) {
    json body = valid_payment();
    body["amount_minor"] = bad;
    EXPECT_EQ(fields_of(validate_payment(body)), fields{"amount_minor"}) << bad.dump();
  }
}

TEST(PaymentValidation, CurrencyAndPaymentMethodAreChecked) {
  json body = valid_payment();
  body["currency"] = "Eur";
  body["payment_method"] = "";
  EXPECT_EQ(fields_of(validate_payment(body)), (fields{"currency", "payment_method"}));
}

TEST(CancelValidation, ReasonIsOptional) {
  EXPECT_TRUE(validate_cancel(json::object()).empty());
  EXPECT_TRUE(validate_cancel(parsed_json(R"({"reason": "customer asked"})")).empty());
}

TEST(CancelValidation, NullReasonMeansNoReason) {
  EXPECT_TRUE(validate_cancel(parsed_json(R"({"reason": null})")).empty());
}

TEST(CancelValidation, ReasonOfUpTo1000CharactersIsAccepted) {
  EXPECT_TRUE(validate_cancel({{"reason", ""}}).empty());
  EXPECT_TRUE(validate_cancel({{"reason", std::string(1000, 'r')}}).empty());
  EXPECT_EQ(fields_of(validate_cancel({{"reason", std::string(1001, 'r')}})), fields{"reason"});
}

TEST(CancelValidation, NonStringReasonIsRejected) {
  EXPECT_EQ(fields_of(validate_cancel(parsed_json(R"({"reason": 5})"))), fields{"reason"});
}

TEST(CancelValidation, NonObjectBodyIsASingleBodyError) {
  EXPECT_EQ(fields_of(validate_cancel(parsed_json("\"because\""))), fields{"body"});
}

TEST(FieldErrorsJson, EmptyListIsAnEmptyArray) {
  EXPECT_EQ(to_json(std::vector<field_error>{}).dump(), "[]");
}

TEST(FieldErrorsJson, EachErrorIsAnObjectWithFieldAndMessage) {
  const auto j =
      to_json(std::vector<field_error>{{"currency", "bad"}, {"items[0].sku", "is required"}});
  EXPECT_EQ(j, parsed_json(R"([{"field": "currency", "message": "bad"},
                           {"field": "items[0].sku", "message": "is required"}])"));
}

}  // namespace
}  // namespace idem::mock
