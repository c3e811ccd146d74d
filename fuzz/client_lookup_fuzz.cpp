// The SDK's judgement of a lookup answer (idem/business_lookup.hpp judge_lookup): any status and
// body against the orders API's preset lookups or a declarative lookup read from the input (as a
// journal would store it), with any payload. Properties: nothing throws or crashes; a lookup
// survives its JSON form unchanged; 404/410 are not_found and 5xx/408/429 retry; a found or
// conflicting verdict carries the record, as JSON, that decided it.
//
// Input, as text: the lookup ("created ID", "payment ID", "cancelled ID", or a lookup's JSON), the
// payload's JSON (empty: an order of 3 books at 5.00 EUR, merchant_order_id m-1), the status,
// then the body.

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.hpp"
#include "fuzz/input_lines.hpp"
#include "idem/business_lookup.hpp"
#include "idem/orders.hpp"

namespace {

using json = nlohmann::json;

json parsed_or_null(std::string_view text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? json{} : j;
}

idem::business_lookup lookup_from(std::string_view line) {
  std::string_view rest = line;
  const std::string_view preset = idem::fuzz::next_word(rest);
  if (preset == "created") return idem::orders::order_created_lookup(std::string(rest));
  if (preset == "payment") return idem::orders::payment_captured_lookup(std::string(rest));
  if (preset == "cancelled") return idem::orders::order_cancelled_lookup(std::string(rest));
  auto declared = idem::business_lookup_from_json(parsed_or_null(line));
  return declared ? *declared : idem::business_lookup{};
}

json payload_from(std::string_view line) {
  if (!line.empty()) return parsed_or_null(line);
  return {{"merchant_order_id", "m-1"},
          {"currency", "EUR"},
          {"amount_minor", 1500},
          {"items", {{{"sku", "book"}, {"quantity", 3}, {"unit_price_minor", 500}}}}};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input = idem::fuzz::as_text(data, size);
  const idem::business_lookup lookup = lookup_from(idem::fuzz::next_line(input));
  const auto stored = idem::business_lookup_from_json(idem::to_json(lookup));
  IDEM_FUZZ_CHECK(stored.has_value() && *stored == lookup);

  const json payload = payload_from(idem::fuzz::next_line(input));
  (void)idem::expand_lookup_url(lookup, payload);

  const std::string_view status_text = idem::fuzz::next_line(input);
  int status = 0;
  std::from_chars(status_text.data(), status_text.data() + status_text.size(), status);
  const auto judgement = idem::judge_lookup(lookup, payload, status, input);
  (void)idem::to_string(judgement.verdict);
  if (status == 404 || status == 410) {
    IDEM_FUZZ_CHECK(judgement.verdict == idem::lookup_verdict::not_found);
  }
  if (status >= 500 || status == 408 || status == 429) {
    IDEM_FUZZ_CHECK(judgement.verdict == idem::lookup_verdict::retry);
  }
  // Only 404, 410 or a readable 200/203 prove absence (contract section 8, key retention).
  if (judgement.verdict == idem::lookup_verdict::not_found) {
    IDEM_FUZZ_CHECK(status == 404 || status == 410 || status == 200 || status == 203);
  }
  if (judgement.verdict == idem::lookup_verdict::found) IDEM_FUZZ_CHECK(judgement.matches >= 1);
  const bool decided = judgement.verdict == idem::lookup_verdict::found ||
                       judgement.verdict == idem::lookup_verdict::conflicting;
  IDEM_FUZZ_CHECK(decided == !judgement.record.empty());
  if (decided) IDEM_FUZZ_CHECK(json::accept(judgement.record));
  return 0;
}
