#pragma once
// What `idem-cli conform` sends: the endpoint under test, a body template whose `{{unique}}`
// placeholders make every request set a new business object, and the requests built from them
// (with or without a key, under either principal), plus the lookup GET by business ID.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "idem/business_lookup.hpp"
#include "idem/http_headers.hpp"
#include "idem/transport.hpp"

namespace idem::cli {

/// Replaced, everywhere in a body template, by a value unique to one request set.
inline constexpr std::string_view unique_placeholder = "{{unique}}";

/// The mock server's create-order body (CONTRACT.md section 4) with `{{unique}}` as its
/// merchant_order_id.
[[nodiscard]] std::string default_body_template();

/// "" when `text` is a usable template: it holds `{{unique}}` at least once and is JSON once
/// the placeholder is replaced; else what is wrong (words that follow "idem-cli: ").
[[nodiscard]] std::string check_body_template(std::string_view text);

/// `text` with every `{{unique}}` replaced by `unique`.
[[nodiscard]] std::string fill_template(std::string_view text, const std::string& unique);

/// The backend under test and how to talk to it. A value; built once per run.
struct conform_endpoint {
  std::string base_url;  ///< http(s)://host[:port], no trailing path
  std::string path = "/v1/orders";
  std::string body_template = default_body_template();
  std::string token;
  std::string token2{};  ///< empty: the principal check is skipped
  header_list headers{};
  std::string key_header = "Idempotency-Key";
  std::chrono::milliseconds timeout{10'000};  ///< per request
  /// Where a 2xx body names the resource it created (then `Location`).
  std::string id_pointer = "/id";
  /// The lookup by business ID, its business_id left empty (each request set has its own);
  /// not enabled(): the backend offers none (or --lookup none).
  business_lookup lookup{};
};

/// Unique values for one run: "conform-<run>-<n>", with <run> random per run so that a second
/// run against the same backend never meets the first one's business IDs. Not thread-safe.
class unique_values {
 public:
  unique_values();
  /// A fresh value; `label` (e.g. "race") makes it readable in the backend's logs.
  [[nodiscard]] std::string next(std::string_view label);

 private:
  std::string run_;
  std::uint64_t count_ = 0;
};

/// Which principal a request is sent as: --token or --token2.
enum class which_token { first, second };

/// POST `e.path` with `body`, `key` (none: no key header at all) and the token of `who`.
[[nodiscard]] http_request post_request(const conform_endpoint& e, std::string body,
                                        const std::optional<std::string>& key,
                                        which_token who = which_token::first);

/// The GET that looks up the request set of `unique` (sent with `body`), or nullopt when the
/// endpoint has no lookup (or its URL names a value the body lacks).
[[nodiscard]] std::optional<http_request> lookup_request(const conform_endpoint& e,
                                                         const std::string& unique,
                                                         const std::string& body);

/// How many records a lookup answer holds about `unique` (the lookup's `select` and `identify`
/// pointers); nullopt when the answer is not a 200 with such records in JSON (404 and 410 count
/// as 0).
[[nodiscard]] std::optional<std::size_t> count_lookup_records(const conform_endpoint& e,
                                                              const std::string& unique,
                                                              const transport_result& answer);

}  // namespace idem::cli
