// demo_report: prints idem-cli's load summary beside the mock server's own counts and checks the
// demo's claim: every intent succeeded and the server holds each exactly once.
//
//   demo_report ORDERS PAY(0|1) LOAD_SUMMARY.json STATS.json
//
// Exit status 0 when the claim holds, 1 when it does not, 2 on bad input.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

using nlohmann::json;

json read_json(const char* path) {
  std::ifstream in(path);
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) throw std::runtime_error(std::string("not a JSON object: ") + path);
  return j;
}

long long num(const json& j, const char* name) {
  auto it = j.find(name);
  return it != j.end() && it->is_number() ? it->get<long long>() : -1;
}

// The field as printed: numbers as JSON writes them (so 12.5 stays 12.5), "?" if missing.
std::string text(const json& j, const char* name) {
  auto it = j.find(name);
  return it != j.end() && it->is_number() ? it->dump() : "?";
}

struct check {
  std::string what;
  long long actual;
  long long expected;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: demo_report ORDERS PAY(0|1) LOAD_SUMMARY.json STATS.json\n";
    return 2;
  }
  try {
    const long long orders = std::stoll(argv[1]);
    const bool pay = std::string(argv[2]) == "1";
    const json load = read_json(argv[3]);
    const json stats = read_json(argv[4]);
    const long long intents = num(load, "intents");
    const double seconds = static_cast<double>(num(load, "elapsed_ms")) / 1000.0;
    const long long prevented = num(stats, "replays") + num(stats, "in_progress_conflicts") +
                                num(stats, "business_id_conflicts");

    const std::vector<std::pair<std::string, std::string>> left = {
        {"intents", text(load, "intents")},
        {"succeeded", text(load, "succeeded")},
        {"rejected", text(load, "rejected")},
        {"not_sent", text(load, "not_sent")},
        {"unresolved", text(load, "unresolved")},
        {"recovered_by_lookup", text(load, "recovered_by_lookup")},
        {"attempts (writes)", text(load, "attempts")},
        {"retries", text(load, "retries")},
        {"p50 ms", text(load, "p50_ms")},
        {"p99 ms", text(load, "p99_ms")}};
    const std::vector<std::pair<std::string, std::string>> right = {
        {"requests", text(stats, "requests")},
        {"faults_injected", text(stats, "faults_injected")},
        {"orders", text(stats, "orders")},
        {"payments", text(stats, "payments")},
        {"provider_charges", text(stats, "provider_charges")},
        {"replays", text(stats, "replays")},
        {"in_progress_conflicts", text(stats, "in_progress_conflicts")},
        {"duplicates prevented", std::to_string(prevented)},
        {"orders_with_multiple_charges", text(stats, "orders_with_multiple_charges")},
        {"max_keys_per_business_id", text(stats, "max_keys_per_business_id")}};

    std::printf("  %-31s    %s\n", "client (idem-cli load)", "server (/_mock/stats)");
    for (std::size_t n = 0; n < left.size() || n < right.size(); ++n) {
      const std::string l = n < left.size() ? left[n].first : "";
      const std::string lv = n < left.size() ? left[n].second : "";
      const std::string r = n < right.size() ? right[n].first : "";
      const std::string rv = n < right.size() ? right[n].second : "";
      std::printf("  %-22s %8s    %-30s %8s\n", l.c_str(), lv.c_str(), r.c_str(), rv.c_str());
    }
    std::printf("  %.1f s, %.0f intents/s\n\n", seconds,
                seconds > 0 ? static_cast<double>(intents) / seconds : 0.0);

    const long long expected_intents = pay ? 2 * orders : orders;
    const std::vector<check> checks = {
        {"every intent succeeded", num(load, "succeeded"), expected_intents},
        {"orders == N", num(stats, "orders"), orders},
        {"provider_charges == N", num(stats, "provider_charges"), pay ? orders : 0},
        {"orders_with_multiple_charges == 0", num(stats, "orders_with_multiple_charges"), 0},
        {"max_keys_per_business_id == 1", num(stats, "max_keys_per_business_id"), 1}};
    bool all = true;
    for (const auto& c : checks) {
      const bool ok = c.actual == c.expected;
      all = all && ok;
      std::printf("  [%s] %-34s %lld (expected %lld)\n", ok ? " ok " : "FAIL", c.what.c_str(),
                  c.actual, c.expected);
    }
    return all ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "demo_report: " << e.what() << '\n';
    return 2;
  }
}
