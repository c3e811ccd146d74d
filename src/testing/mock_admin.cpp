#include "idem/testing/mock_admin.hpp"

#include <utility>

#include "testing/admin_request.hpp"

namespace idem::kit {
namespace {

mock_result<void> done(const mock_result<nlohmann::json>& r) {
  if (!r) return r.error();
  return {};
}

}  // namespace

mock_admin::mock_admin(std::string base_url, std::string admin_token)
    : base_url_(std::move(base_url)), admin_token_(std::move(admin_token)) {}

mock_result<void> mock_admin::set_faults(const fault_set& faults) const {
  return set_faults_json(faults.to_json());
}

mock_result<void> mock_admin::set_faults_json(const nlohmann::json& config) const {
  return done(detail::admin_request(base_url_, admin_token_, "PUT", "/_mock/faults", config));
}

mock_result<void> mock_admin::use_preset(std::string_view name,
                                         std::optional<std::uint64_t> seed) const {
  nlohmann::json body = {{"preset", std::string{name}}};
  if (seed) body["seed"] = *seed;
  return set_faults_json(body);
}

mock_result<void> mock_admin::clear_faults() const {
  return done(detail::admin_request(base_url_, admin_token_, "DELETE", "/_mock/faults"));
}

mock_result<nlohmann::json> mock_admin::faults() const {
  return detail::admin_request(base_url_, admin_token_, "GET", "/_mock/faults");
}

mock_result<mock_stats> mock_admin::stats() const {
  auto answer = detail::admin_request(base_url_, admin_token_, "GET", "/_mock/stats");
  if (!answer) return answer.error();
  return parse_mock_stats(*answer);
}

invariants_report mock_admin::check_invariants() const {
  auto answer = detail::admin_request(base_url_, admin_token_, "GET", "/_mock/invariants");
  if (!answer) return invariants_report{.checks = {}, .unavailable = answer.error()};
  return parse_invariants(*answer);
}

mock_result<void> mock_admin::advance_clock(std::chrono::milliseconds by) const {
  const nlohmann::json body = {{"advance_s", static_cast<double>(by.count()) / 1000.0}};
  return done(detail::admin_request(base_url_, admin_token_, "POST", "/_mock/clock", body));
}

mock_result<std::int64_t> mock_admin::complete_abandoned() const {
  auto answer = detail::admin_request(base_url_, admin_token_, "POST", "/_mock/complete",
                                      nlohmann::json::object());
  if (!answer) return answer.error();
  auto it = answer->find("settled");
  if (it == answer->end() || !it->is_number_integer()) {
    return mock_error{mock_errc::bad_answer, "/_mock/complete: no integer 'settled'"};
  }
  return it->get<std::int64_t>();
}

mock_result<void> mock_admin::set_principals(
    const std::map<std::string, std::string>& principals) const {
  return done(detail::admin_request(base_url_, admin_token_, "PUT", "/_mock/principals",
                                    nlohmann::json(principals)));
}

mock_result<void> mock_admin::reset() const {
  return done(detail::admin_request(base_url_, admin_token_, "POST", "/_mock/reset",
                                    nlohmann::json::object()));
}

}  // namespace idem::kit
