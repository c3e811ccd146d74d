// The mock server's JSON path on arbitrary bodies: parsing (mock_server/http/canonical_json.hpp),
// the canonical form, the Orders API validation (order_validation.hpp) and the request fingerprint
// (fingerprint.hpp). Properties: nothing throws or crashes; the canonical form parses back to a
// value with the same canonical form; a fingerprint is 64 hex digits and depends on the body
// only through its canonical form.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.hpp"
#include "mock_server/http/canonical_json.hpp"
#include "mock_server/idempotency/fingerprint.hpp"
#include "mock_server/orders/order_validation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto body = idem::mock::parse_json(text);
  if (!body) return 0;

  const std::string canonical = idem::mock::canonical_json(*body);
  const auto again = idem::mock::parse_json(canonical);
  IDEM_FUZZ_CHECK(again.has_value());
  IDEM_FUZZ_CHECK(idem::mock::canonical_json(*again) == canonical);

  const std::string fingerprint = idem::mock::request_fingerprint("POST", "/v1/orders", *body);
  IDEM_FUZZ_CHECK(fingerprint.size() == 64);
  IDEM_FUZZ_CHECK(fingerprint.find_first_not_of("0123456789abcdef") == std::string::npos);
  IDEM_FUZZ_CHECK(idem::mock::request_fingerprint("POST", "/v1/orders", *again) == fingerprint);

  // Each validator returns its errors as data; their JSON form is what a 400 carries.
  for (const auto& errors :
       {idem::mock::validate_create_order(*body), idem::mock::validate_payment(*body),
        idem::mock::validate_cancel(*body)}) {
    const auto listed = idem::mock::to_json(errors);
    IDEM_FUZZ_CHECK(listed.is_array() && listed.size() == errors.size());
    (void)listed.dump();
  }
  return 0;
}
