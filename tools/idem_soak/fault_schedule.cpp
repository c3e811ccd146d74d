#include "idem_soak/fault_schedule.hpp"

#include <array>
#include <utility>
#include <vector>

#include "idem_soak/soak_random.hpp"

namespace idem::soak {
namespace {

using nlohmann::json;

// How often each kind fires relative to the others: a crash holds its key for a whole lease,
// so it comes less often; a provider timeout can only meet the payments, so it comes more often
// when it does (it is the most ambiguous fault for a payment).
struct kind_weight {
  const char* kind;
  double weight;
  bool arrival;        // fires on arrival: may match any method, the lookups' GETs too
  bool provider_only;  // fires at a provider call: payments and cancels only
};
constexpr std::array<kind_weight, 8> kinds{{{"reset_before_processing", 1.0, true, false},
                                            {"status_before_processing", 1.0, true, false},
                                            {"delay", 1.0, false, false},
                                            {"crash_during_processing", 0.5, false, false},
                                            {"drop_response_after_commit", 1.0, false, false},
                                            {"status_after_commit", 1.0, false, false},
                                            {"stall_after_commit", 0.7, false, false},
                                            {"provider_timeout", 2.5, false, true}}};

constexpr std::array<const char*, 3> routes{"/v1/orders", "/v1/orders/{id}/payments",
                                            "/v1/orders/{id}/cancel"};
constexpr std::array<const char*, 2> provider_routes{"/v1/orders/{id}/payments",
                                                     "/v1/orders/{id}/cancel"};

template <class T, std::size_t N>
T pick(soak_random& rng, const std::array<T, N>& from) {
  return from[static_cast<std::size_t>(rng.between(0, N - 1))];
}

json match_for(soak_random& rng, const kind_weight& k) {
  json match = json::object();
  if (!k.arrival || rng.uniform() >= 0.3) match["method"] = "POST";
  if (rng.uniform() >= 0.5) {
    // Only payments and cancels (a refund) call the provider: a timeout on creates never fires.
    match["route"] = k.provider_only ? pick(rng, provider_routes) : pick(rng, routes);
  }
  return match;
}

json params_for(soak_random& rng, std::string_view kind, std::int64_t attempt_timeout_ms) {
  json p = json::object();
  if (kind == "delay") p["delay_ms"] = rng.between(50, 1500);
  if (kind == "stall_after_commit") p["delay_ms"] = rng.between(200, attempt_timeout_ms + 1000);
  if (kind == "status_before_processing") {
    p["status"] = pick(rng, std::array<int, 5>{429, 500, 502, 503, 504});
    if (rng.uniform() < 0.5) p["retry_after_s"] = rng.between(0, 2);
  }
  if (kind == "status_after_commit") p["status"] = pick(rng, std::array<int, 3>{500, 502, 504});
  return p;
}

}  // namespace

json fault_rules_for(std::uint64_t seed, std::uint64_t epoch, double share,
                     std::int64_t attempt_timeout_ms) {
  soak_random rng(seed, static_cast<std::uint64_t>(soak_stream::faults) * 1'000'003 + epoch);
  double weights = 0;
  for (const auto& k : kinds)
    weights += k.weight;
  std::vector<json> rules;
  for (const auto& k : kinds) {
    // Some kinds get a second rule with a match of its own: one set then hits them on two routes.
    const int copies = rng.uniform() < 0.3 ? 2 : 1;
    for (int c = 0; c < copies; ++c) {
      json rule = {{"match", match_for(rng, k)},
                   {"fault", k.kind},
                   {"probability", share * k.weight / weights / copies * (0.5 + rng.uniform())},
                   {"times", rule_times}};
      rule.update(params_for(rng, k.kind, attempt_timeout_ms));
      rules.push_back(std::move(rule));
    }
  }
  // Within a stage the first rule that fires wins: shuffle which one that is.
  for (std::size_t n = rules.size(); n > 1; --n)
    std::swap(rules[n - 1], rules[static_cast<std::size_t>(rng.between(0, n - 1))]);
  return {{"seed", rng.next() >> 12}, {"rules", std::move(rules)}};
}

void fault_tally::add(const json& installed, const json& now) {
  const auto& before = installed.at("rules");
  const auto& after = now.at("rules");
  for (std::size_t n = 0; n < before.size() && n < after.size(); ++n) {
    const auto left = after[n].value("times", rule_times);
    const auto fired = before[n].value("times", rule_times) - left;
    if (fired > 0) by_kind_[before[n].value("fault", "?")] += static_cast<std::uint64_t>(fired);
  }
}

std::uint64_t fault_tally::total() const noexcept {
  std::uint64_t sum = 0;
  for (const auto& [kind, n] : by_kind_)
    sum += n;
  return sum;
}

}  // namespace idem::soak
