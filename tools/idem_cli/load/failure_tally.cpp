#include "idem_cli/load/failure_tally.hpp"

#include <algorithm>
#include <vector>

namespace idem::cli {

void failure_tally::add(outcome_kind kind, const std::string& reason, std::uint64_t n) {
  if (n != 0) counts_[{kind, reason}] += n;
}

std::uint64_t failure_tally::count(outcome_kind kind, const std::string& reason) const {
  auto it = counts_.find({kind, reason});
  return it == counts_.end() ? 0 : it->second;
}

void failure_tally::print(std::ostream& out, std::size_t max_lines) const {
  using entry = std::pair<std::pair<outcome_kind, std::string>, std::uint64_t>;
  std::vector<entry> lines(counts_.begin(), counts_.end());
  // The most frequent first; ties in a fixed order (by kind, then reason).
  std::stable_sort(lines.begin(), lines.end(),
                   [](const entry& a, const entry& b) { return a.second > b.second; });
  std::uint64_t rest = 0;
  for (std::size_t n = 0; n < lines.size(); ++n) {
    const auto& [what, count] = lines[n];
    if (n < max_lines) {
      out << "idem-cli: " << count << ' ' << to_string(what.first) << ": " << what.second << '\n';
    } else {
      rest += count;
    }
  }
  if (rest != 0) {
    out << "idem-cli: " << rest << " more for " << lines.size() - max_lines << " other reasons\n";
  }
}

}  // namespace idem::cli
