#pragma once
// A JSON text parsed as the mock server parses a request body (parse_json): non-negative
// integers arrive as number_unsigned, negative ones as number_integer, anything with '.' or 'e'
// as number_float. The text must parse (a failed parse fails the test and gives null).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string_view>

#include "mock_server/http/canonical_json.hpp"

namespace idem::mock::test {

inline nlohmann::json parsed_json(std::string_view text) {
  auto value = parse_json(text);
  EXPECT_TRUE(value.has_value()) << text;
  return value.value_or(nullptr);
}

}  // namespace idem::mock::test
