#include "idem_cli/conform/conform_check_support.hpp"

#include <nlohmann/json.hpp>

#include "idem/idempotency_key.hpp"
#include "idem_cli/conform/conform_answer.hpp"

namespace idem::cli {

probe_body new_body(conform_context& c, std::string_view label) {
  probe_body b;
  b.unique = c.unique.next(label);
  b.body = fill_template(c.endpoint.body_template, b.unique);
  return b;
}

std::string new_key() {
  return idempotency_key::mint().str();
}

transport_result post(conform_context& c, const probe_body& b,
                      const std::optional<std::string>& key, which_token who) {
  return c.probe.send(post_request(c.endpoint, b.body, key, who));
}

std::string target_text(const conform_context& c) {
  return "POST " + c.endpoint.path;
}

std::optional<std::size_t> lookup_count(conform_context& c, const probe_body& b) {
  auto get = lookup_request(c.endpoint, b.unique, b.body);
  if (!get) return std::nullopt;
  return count_lookup_records(c.endpoint, b.unique, c.probe.send(std::move(*get)));
}

std::string lookup_text(const std::optional<std::size_t>& n, const conform_context& c) {
  if (!c.endpoint.lookup.enabled()) return "; no lookup";
  if (!n) return "; lookup: no usable answer";
  return "; lookup: " + std::to_string(*n) + (*n == 1 ? " record" : " records");
}

sameness same_resource(const transport_result& a, const transport_result& b,
                       const std::string& id_pointer) {
  const auto id_a = resource_id(a, id_pointer);
  const auto id_b = resource_id(b, id_pointer);
  if (id_a && id_b) return *id_a == *id_b ? sameness::same : sameness::different;
  using json = nlohmann::json;
  const auto body_a = json::parse(a.response.body, nullptr, /*allow_exceptions=*/false);
  const auto body_b = json::parse(b.response.body, nullptr, /*allow_exceptions=*/false);
  if (!body_a.is_discarded() && body_a == body_b) return sameness::same;
  if (body_a.is_discarded() && !a.response.body.empty() && a.response.body == b.response.body) {
    return sameness::same;
  }
  return sameness::unknown;
}

check_result no_answer(check_result row, const transport_result& r, std::string_view which) {
  row.result = verdict::error;
  row.no_answer = true;
  row.came_back += (row.came_back.empty() ? "" : "; ") + std::string(which) + ": no answer (" +
                   r.ec.message() + ")";
  row.why =
      "the backend gave no HTTP answer within the timeout (--attempt-timeout): nothing "
      "could be checked";
  return row;
}

std::optional<check_result> unless_accepted(const check_result& row, const transport_result& r,
                                            std::string_view which, const conform_context& c) {
  if (!answered(r)) return no_answer(row, r, which);
  if (succeeded(r)) return std::nullopt;
  check_result out = row;
  out.result = verdict::error;
  out.came_back = std::string(which) + ": " + describe(r, c.endpoint.id_pointer);
  out.why =
      "a request that had to succeed was not accepted: check --url, --path, --token and "
      "the body (--body-file)";
  return out;
}

std::variant<check_result, one_key_pair> send_under_one_key(
    conform_context& c, const check_result& row, const probe_body& a, const probe_body& b,
    std::string_view second_name, which_token second_as) {
  const auto key = new_key();
  one_key_pair out{.first = post(c, a, key), .second = {}};
  if (auto stop = unless_accepted(row, out.first, "first", c)) return *stop;
  out.second = post(c, b, key, second_as);
  if (!answered(out.second)) return no_answer(row, out.second, second_name);
  return out;
}

}  // namespace idem::cli
