#include "idem_cli/conform/conform_request.hpp"

#include <nlohmann/json.hpp>

#include "idem/idempotency_key.hpp"

namespace idem::cli {
namespace {

using json = nlohmann::json;

std::string join_url(const std::string& base, const std::string& path) {
  if (!base.empty() && base.back() == '/') return base.substr(0, base.size() - 1) + path;
  return base + path;
}

// How many records of a lookup answer's JSON are about `unique`.
std::optional<std::size_t> count_about(const conform_endpoint& e, const std::string& unique,
                                       const json& body) {
  const json::json_pointer select(e.lookup.select);
  if (!body.contains(select)) return std::nullopt;
  const json& found = body.at(select);
  const auto about_us = [&](const json& record) {
    if (e.lookup.identify.empty()) return true;
    const json::json_pointer identify(e.lookup.identify);
    return record.is_object() && record.contains(identify) && record.at(identify) == unique;
  };
  if (found.is_array()) {
    std::size_t n = 0;
    for (const auto& record : found)
      n += about_us(record) ? 1 : 0;
    return n;
  }
  if (found.is_object()) return about_us(found) ? 1 : 0;
  return std::nullopt;
}

}  // namespace

std::string default_body_template() {
  return R"({"merchant_order_id":"{{unique}}","customer_id":"idem-conform","currency":"EUR",)"
         R"("amount_minor":1500,"items":[{"sku":"conform-probe","quantity":3,)"
         R"("unit_price_minor":500}]})";
}

std::string check_body_template(std::string_view text) {
  if (text.find(unique_placeholder) == std::string_view::npos) {
    return "the body holds no {{unique}} placeholder (each check needs a new business object, "
           "e.g. {\"order_ref\": \"{{unique}}\", ...})";
  }
  if (!json::accept(fill_template(text, "conform-0"))) {
    return "the body is not JSON once {{unique}} is replaced";
  }
  return {};
}

std::string fill_template(std::string_view text, const std::string& unique) {
  std::string out;
  for (std::size_t at = 0;;) {
    const auto found = text.find(unique_placeholder, at);
    out.append(text.substr(at, found - at));
    if (found == std::string_view::npos) return out;
    out.append(unique);
    at = found + unique_placeholder.size();
  }
}

unique_values::unique_values() : run_(idempotency_key::mint().str().substr(0, 8)) {}

std::string unique_values::next(std::string_view label) {
  return "conform-" + run_ + "-" + std::string(label) + "-" + std::to_string(++count_);
}

http_request post_request(const conform_endpoint& e, std::string body,
                          const std::optional<std::string>& key, which_token who) {
  http_request r;
  r.method = "POST";
  r.url = join_url(e.base_url, e.path);
  r.headers = e.headers;
  r.headers.emplace_back("Authorization",
                         "Bearer " + (who == which_token::first ? e.token : e.token2));
  r.headers.emplace_back("Content-Type", "application/json");
  if (key) r.headers.emplace_back(e.key_header, *key);
  r.body = std::move(body);
  r.timeout = e.timeout;
  return r;
}

std::optional<http_request> lookup_request(const conform_endpoint& e, const std::string& unique,
                                           const std::string& body) {
  if (!e.lookup.enabled()) return std::nullopt;
  business_lookup l = e.lookup;
  l.business_id = unique;
  auto payload = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (payload.is_discarded()) return std::nullopt;
  auto url = expand_lookup_url(l, payload);
  if (!url) return std::nullopt;
  http_request r;
  r.method = "GET";
  r.url = url->starts_with("/") ? join_url(e.base_url, *url) : *url;
  r.headers = e.headers;
  r.headers.emplace_back("Authorization", "Bearer " + e.token);
  r.timeout = e.timeout;
  return r;
}

std::optional<std::size_t> count_lookup_records(const conform_endpoint& e,
                                                const std::string& unique,
                                                const transport_result& answer) {
  if (answer.ec) return std::nullopt;
  const int status = answer.response.status;
  if (status == 404 || status == 410) return 0;
  if (status != 200) return std::nullopt;
  const auto body = json::parse(answer.response.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) return std::nullopt;
  try {
    return count_about(e, unique, body);
  } catch (const json::exception&) {
    return std::nullopt;  // pointers the command line let through but this JSON cannot take
  }
}

}  // namespace idem::cli
