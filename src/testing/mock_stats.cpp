#include "idem/testing/mock_stats.hpp"

#include <array>
#include <string_view>

namespace idem::kit {
namespace {

struct counter {
  std::string_view name;
  std::int64_t mock_stats::*member;
};

constexpr std::array<counter, 16> counters{{
    {"requests", &mock_stats::requests},
    {"orders", &mock_stats::orders},
    {"payments", &mock_stats::payments},
    {"provider_charges", &mock_stats::provider_charges},
    {"provider_refunds", &mock_stats::provider_refunds},
    {"replays", &mock_stats::replays},
    {"key_mismatches", &mock_stats::key_mismatches},
    {"in_progress_conflicts", &mock_stats::in_progress_conflicts},
    {"business_id_conflicts", &mock_stats::business_id_conflicts},
    {"invalid_state_transitions", &mock_stats::invalid_state_transitions},
    {"faults_injected", &mock_stats::faults_injected},
    {"orders_with_multiple_charges", &mock_stats::orders_with_multiple_charges},
    {"max_keys_per_business_id", &mock_stats::max_keys_per_business_id},
    {"idempotency_records", &mock_stats::idempotency_records},
    {"records_purged", &mock_stats::records_purged},
    {"abandoned_settled", &mock_stats::abandoned_settled},
}};

}  // namespace

mock_result<mock_stats> parse_mock_stats(const nlohmann::json& answer) {
  if (!answer.is_object()) {
    return mock_error{mock_errc::bad_answer, "/_mock/stats: not a JSON object: " + answer.dump()};
  }
  mock_stats s;
  for (const auto& c : counters) {
    auto it = answer.find(c.name);
    if (it == answer.end() || !it->is_number_integer()) {
      return mock_error{mock_errc::bad_answer,
                        "/_mock/stats: no integer '" + std::string{c.name} + "'"};
    }
    s.*c.member = it->get<std::int64_t>();
  }
  s.raw = answer;
  return s;
}

std::ostream& operator<<(std::ostream& out, const mock_stats& s) {
  const char* separator = "";
  for (const auto& c : counters) {
    out << separator << c.name << '=' << s.*c.member;
    separator = " ";
  }
  return out;
}

}  // namespace idem::kit
