#include "mock_server/admin/stats_snapshot.hpp"

#include "mock_server/state/server_state.hpp"

#include <sstream>

namespace idem::mock {
namespace {

// Counters incremented as things happen (table `counters`).
constexpr std::string_view counted[] = {"requests",
                                        "replays",
                                        "key_mismatches",
                                        "in_progress_conflicts",
                                        "business_id_conflicts",
                                        "invalid_state_transitions",
                                        "faults_injected",
                                        "records_purged",
                                        "abandoned_settled"};

struct metric_help {
  std::string_view name;
  std::string_view type;
  std::string_view help;
};

constexpr metric_help help_texts[] = {
    {"requests", "counter", "Requests to /v1/*."},
    {"orders", "gauge", "Orders stored."},
    {"payments", "gauge", "Payments stored."},
    {"provider_charges", "counter", "Charges captured by the mock payment provider."},
    {"provider_refunds", "counter", "Refunds made by the mock payment provider."},
    {"replays", "counter", "Stored responses replayed for a repeated key."},
    {"key_mismatches", "counter", "Requests that reused a key with another body (422)."},
    {"in_progress_conflicts", "counter", "409 answers while the key was still processing."},
    {"business_id_conflicts", "counter", "Executions refused by the merchant_order_id constraint."},
    {"invalid_state_transitions", "counter", "Executions refused by the order's state."},
    {"faults_injected", "counter", "Faults fired by the fault rules."},
    {"orders_with_multiple_charges", "gauge", "Orders charged more than once, net of refunds."},
    {"max_keys_per_business_id", "gauge", "Most distinct keys that tried one merchant_order_id."},
    {"idempotency_records", "gauge", "Idempotency records stored."},
    {"records_purged", "counter", "Idempotency records removed after their TTL."},
    {"abandoned_settled", "counter", "PROCESSING records the completer drove to their end."},
};

}  // namespace

namespace {

// Every figure from memory: counters and row counts the stores keep (O(1), no database access).
nlohmann::json current_stats(server_state& state) {
  nlohmann::json out = nlohmann::json::object();
  for (auto name : counted)
    out[std::string{name}] = state.stats.get(name);
  out["orders"] = state.orders.count_orders();
  out["payments"] = state.orders.count_payments();
  out["provider_charges"] = state.provider.captured_charges();
  out["provider_refunds"] = state.provider.refunds();
  out["orders_with_multiple_charges"] = state.provider.orders_with_multiple_charges();
  out["max_keys_per_business_id"] = state.orders.max_keys_per_business_id();
  out["idempotency_records"] = state.records.count();
  return out;
}

}  // namespace

nlohmann::json stats_snapshot(server_state& state) {
  // Traffic counted in memory is written first: what a read shows survives a kill -9.
  state.stats.persist();
  // Counted again from the tables: the admin's figures (orders_with_multiple_charges above all)
  // are the tables' truth, whatever wrote them, not the server's own bookkeeping of what it
  // committed; /metrics then starts again from them.
  state.load_counts();
  return current_stats(state);
}

std::string prometheus_metrics(server_state& state) {
  // Open to anyone, so it must cost next to nothing: no table scan, no write (and no wait for a
  // database lock another process holds).
  auto stats = current_stats(state);
  std::ostringstream out;
  for (const auto& m : help_texts) {
    std::string name = "idem_mock_" + std::string{m.name};
    if (m.type == "counter") name += "_total";
    out << "# HELP " << name << ' ' << m.help << '\n';
    out << "# TYPE " << name << ' ' << m.type << '\n';
    out << name << ' ' << stats.value(std::string{m.name}, std::int64_t{0}) << '\n';
  }
  out << "# HELP idem_mock_http_responses_total Responses written, by status code.\n";
  out << "# TYPE idem_mock_http_responses_total counter\n";
  for (const auto& [status, count] : state.responses_by_status) {
    out << "idem_mock_http_responses_total{code=\"" << status << "\"} " << count << '\n';
  }
  out << "# HELP idem_mock_clock_offset_seconds How far /_mock/clock moved the server clock.\n";
  out << "# TYPE idem_mock_clock_offset_seconds gauge\n";
  out << "idem_mock_clock_offset_seconds " << state.clock.offset().count() / 1000.0 << '\n';
  return out.str();
}

}  // namespace idem::mock
