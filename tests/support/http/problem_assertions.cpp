#include "tests/support/http/problem_assertions.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace idem::kit {

::testing::AssertionResult has_status(const http_result& r, int status) {
  if (!r.ok()) return ::testing::AssertionFailure() << "no response: " << r.ec.message();
  if (r.res.status != status) {
    return ::testing::AssertionFailure()
           << "status " << r.res.status << " (expected " << status << "), body: " << r.res.body;
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult is_problem(const http_result& r, int status, std::string_view name) {
  if (auto ok = has_status(r, status); !ok) return ok;
  const auto fail = [&r]() {
    return ::testing::AssertionFailure() << "body " << r.res.body << ": ";
  };
  const auto content_type = r.res.header("Content-Type");
  if (!content_type || !content_type->starts_with("application/problem+json")) {
    return fail() << "Content-Type is " << content_type.value_or("(missing)")
                  << ", expected application/problem+json";
  }
  const auto body = nlohmann::json::parse(r.res.body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) return fail() << "not a JSON object";
  const std::string expected_type = std::string{problem_prefix} + std::string{name};
  const auto type = body.find("type");
  if (type == body.end() || !type->is_string() || type->get<std::string>() != expected_type) {
    return fail() << "type is not " << expected_type;
  }
  const auto member_status = body.find("status");
  if (member_status == body.end() || !member_status->is_number_integer() ||
      member_status->get<int>() != status) {
    return fail() << "member `status` is not " << status;
  }
  for (const char* member : {"title", "detail"}) {
    const auto it = body.find(member);
    if (it == body.end() || !it->is_string()) return fail() << "member `" << member << "` missing";
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult replayed_header_is(const http_result& r, std::string_view expected) {
  if (!r.ok()) return ::testing::AssertionFailure() << "no response: " << r.ec.message();
  const auto value = r.res.header("Idempotent-Replayed");
  if (!value) return ::testing::AssertionFailure() << "no Idempotent-Replayed header";
  if (*value != expected) {
    return ::testing::AssertionFailure()
           << "Idempotent-Replayed: " << *value << " (expected " << expected << ")";
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult has_no_replayed_header(const http_result& r) {
  if (!r.ok()) return ::testing::AssertionFailure() << "no response: " << r.ec.message();
  if (const auto value = r.res.header("Idempotent-Replayed")) {
    return ::testing::AssertionFailure()
           << "unexpected Idempotent-Replayed: " << *value << " on status " << r.res.status;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace idem::kit
