#pragma once
// Why the intents of a load or resume did not succeed, counted by outcome and reason, so that
// stderr gets a few lines of counts rather than one line per intent.

#include <cstddef>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <utility>

#include "idem/outcome.hpp"

namespace idem::cli {

/// Not thread-safe; one per run.
class failure_tally {
 public:
  /// Counts `n` more intents that ended `kind` for `reason` (failure_words without the body).
  void add(outcome_kind kind, const std::string& reason, std::uint64_t n = 1);
  [[nodiscard]] bool empty() const noexcept { return counts_.empty(); }
  /// How many intents ended `kind` for `reason`.
  [[nodiscard]] std::uint64_t count(outcome_kind kind, const std::string& reason) const;
  /// One line per outcome and reason, the most frequent first, e.g.
  /// `idem-cli: 3 not_sent: connection refused (http://127.0.0.1:1)`; at most `max_lines` of
  /// them, then one line that counts the rest.
  void print(std::ostream& out, std::size_t max_lines = 6) const;

 private:
  std::map<std::pair<outcome_kind, std::string>, std::uint64_t> counts_;
};

}  // namespace idem::cli
