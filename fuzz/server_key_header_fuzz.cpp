// The mock server's Idempotency-Key parsing (mock_server/http/key_header.hpp) on arbitrary header
// values. Input: one header field a line, its first character naming the field ('k'
// Idempotency-Key, 'l' idempotency-key, 'u' IDEMPOTENCY-KEY, 's' Idempotency-Keys, anything else
// Content-Type), the rest its value. Properties: never crashes; a key it returns is 1-255
// visible ASCII characters; a request with no key header is `missing`, with two it is `invalid`.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "fuzz/fuzz_check.hpp"
#include "fuzz/input_lines.hpp"
#include "mock_server/http/http_message.hpp"
#include "mock_server/http/key_header.hpp"

namespace {

std::string_view field_name(char c) {
  switch (c) {
    case 'k':
      return "Idempotency-Key";
    case 'l':
      return "idempotency-key";
    case 'u':
      return "IDEMPOTENCY-KEY";
    case 's':
      return "Idempotency-Keys";
    default:
      return "Content-Type";
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input = idem::fuzz::as_text(data, size);
  idem::mock::request req;
  req.method = "POST";
  req.target = "/v1/orders";
  std::size_t key_headers = 0;
  while (!input.empty()) {
    std::string_view field = idem::fuzz::next_line(input);
    if (field.empty()) continue;
    const std::string_view name = field_name(field.front());
    field.remove_prefix(1);
    if (idem::mock::iequals(name, "Idempotency-Key")) ++key_headers;
    req.headers.emplace_back(std::string{name}, std::string{field});
  }

  const auto result = idem::mock::parse_idempotency_key(req);
  if (const auto* key = std::get_if<std::string>(&result)) {
    IDEM_FUZZ_CHECK(key_headers == 1);
    IDEM_FUZZ_CHECK(!key->empty() && key->size() <= 255);
    for (const char c : *key) {
      const auto u = static_cast<unsigned char>(c);
      IDEM_FUZZ_CHECK(u >= 0x21 && u <= 0x7E);
    }
  } else {
    const auto error = std::get<idem::mock::key_error>(result);
    IDEM_FUZZ_CHECK((error == idem::mock::key_error::missing) == (key_headers == 0));
  }
  return 0;
}
