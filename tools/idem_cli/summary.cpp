#include "idem_cli/summary.hpp"

#include "idem_cli/failure_words.hpp"

namespace idem::cli {
namespace {

double tenths_of_ms(std::chrono::microseconds d) {
  return static_cast<double>((d.count() + 50) / 100) / 10.0;
}

double thousandths_of_ms(std::chrono::microseconds d) {
  return static_cast<double>(d.count()) / 1000.0;
}

}  // namespace

nlohmann::json to_json(const load_summary& s) {
  // nlohmann::json sorts keys; JSON objects are unordered, so readers must not rely on order.
  nlohmann::json j = {{"intents", s.intents},
                      {"succeeded", s.counts.succeeded},
                      {"rejected", s.counts.rejected},
                      {"not_sent", s.counts.not_sent},
                      {"unresolved", s.counts.unresolved},
                      {"recovered_by_lookup", s.recovered_by_lookup},
                      {"attempts", s.attempts},
                      {"retries", s.retries},
                      {"p50_ms", tenths_of_ms(s.p50)},
                      {"p99_ms", tenths_of_ms(s.p99)},
                      {"elapsed_ms", s.elapsed.count()}};
  if (s.interrupted) j["interrupted"] = true;
  // Contract section 8: a double execution found by the lookup is never silent.
  if (s.duplicates_found > 0) j["duplicates_found"] = s.duplicates_found;
  if (s.overshoot.intents > 0) {
    j["deadline_overshoot_ms"] = {{"intents", s.overshoot.intents},
                                  {"p50", thousandths_of_ms(s.overshoot.p50)},
                                  {"p99", thousandths_of_ms(s.overshoot.p99)},
                                  {"max", thousandths_of_ms(s.overshoot.max)}};
  }
  return j;
}

std::string duplicates_words(std::uint32_t records) {
  return "the lookup found " + std::to_string(records) +
         " records of this intent: the backend executed it more than once";
}

nlohmann::json to_json(const outcome& o, std::string_view url, std::string_view lookup_url) {
  nlohmann::json j = {{"outcome", std::string(to_string(o.kind()))},
                      {"status", nullptr},
                      {"recovered_by_lookup", o.recovered_by_lookup()},
                      {"replayed", o.replayed()},
                      {"attempts", o.attempts()},
                      {"key", o.key()},
                      {"elapsed_ms", o.elapsed().count()},
                      {"body", nullptr}};
  if (o.status() != 0) j["status"] = o.status();
  // Found by the lookup: how many records of ours (more than one: executed more than once).
  if (o.recovered_by_lookup()) j["matching_records"] = o.matching_records();
  if (!o.body().empty()) {
    auto body = nlohmann::json::parse(o.body(), nullptr, /*allow_exceptions=*/false);
    j["body"] = body.is_discarded() ? nlohmann::json(o.body()) : std::move(body);
  }
  if (auto why = failure_words(o, url, true, lookup_url); !why.empty()) j["error"] = std::move(why);
  return j;
}

}  // namespace idem::cli
