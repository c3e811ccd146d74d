#pragma once
// Parsing of the `Idempotency-Key` request header (contract section 1 and 3).

#include <string>
#include <string_view>
#include <variant>

#include "mock_server/http/http_message.hpp"

namespace idem::mock {

enum class key_error {
  missing,  ///< no Idempotency-Key header at all -> 400 idempotency-key-missing
  invalid,  ///< empty, too long, non-visible characters, bad quoting, repeated header -> 400
            ///< idempotency-key-invalid
};

/// Extracts the key from a request. Accepts a structured-field string (`"abc"`, with `\"` and
/// `\\` escapes) or a bare token (`abc`); after unquoting the key must be 1-255 visible ASCII
/// characters (0x21-0x7E): spaces and control characters are invalid even inside quotes.
/// Leading/trailing optional whitespace around the field value is ignored. A header that occurs
/// more than once is invalid.
[[nodiscard]] std::variant<std::string, key_error> parse_idempotency_key(const request& req);

/// For a header block the HTTP parser refused: true when one of its `Idempotency-Key` lines holds
/// a control character (other than HTAB) or DEL. The parser refuses such a block before the key
/// can be read, yet the contract's answer for it is `idempotency-key-invalid`, not a generic 400.
/// `raw` is the bytes received, from the request line on; it may be cut anywhere.
[[nodiscard]] bool has_key_line_with_control_character(std::string_view raw) noexcept;

}  // namespace idem::mock
