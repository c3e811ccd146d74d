#pragma once
// GoogleTest predicates for the mock server's answers: a status with the body shown on failure,
// and RFC 9457 problems checked the way clients read them (status, media type, `type`).

#include <gtest/gtest.h>

#include <string_view>

#include "tests/support/http/http_client.hpp"

namespace idem::kit {

/// The prefix of every problem type the mock server sends. Spelled out here rather than taken
/// from the server, so that a change there fails the tests.
inline constexpr std::string_view problem_prefix = "https://idem.example/problems/";

/// Success when `r` holds a complete response with this status. The failure message shows the
/// transport error or the status and body that came back.
[[nodiscard]] ::testing::AssertionResult has_status(const http_result& r, int status);

/// Success when `r` is an RFC 9457 problem as contract section 5 defines it: this status,
/// `Content-Type: application/problem+json`, and a JSON object body whose `type` is
/// "https://idem.example/problems/<name>", whose `status` member equals the status and whose
/// `title` and `detail` are strings.
[[nodiscard]] ::testing::AssertionResult is_problem(const http_result& r, int status,
                                                    std::string_view name);

/// Success when the response carries `Idempotent-Replayed` with exactly this value ("true" for a
/// replay, "false" for a first execution).
[[nodiscard]] ::testing::AssertionResult replayed_header_is(const http_result& r,
                                                            std::string_view expected);
/// Success when the response carries no `Idempotent-Replayed` header (answers not stored).
[[nodiscard]] ::testing::AssertionResult has_no_replayed_header(const http_result& r);

}  // namespace idem::kit
