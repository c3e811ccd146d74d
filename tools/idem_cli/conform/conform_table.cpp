#include "idem_cli/conform/conform_table.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "idem_cli/exit_status.hpp"

namespace idem::cli {
namespace {

constexpr std::array<std::size_t, 6> widths = {16, 26, 34, 7, 12, 44};

// `text` broken at spaces into lines of at most `width` characters (a longer word is split).
std::vector<std::string> wrap(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto end = std::min(text.find(' ', at), text.size());
    std::string word = text.substr(at, end - at);
    at = end + 1;
    while (word.size() > width) {
      if (!line.empty()) lines.push_back(std::exchange(line, {}));
      lines.push_back(word.substr(0, width));
      word.erase(0, width);
    }
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(std::exchange(line, {}));
    }
    if (!line.empty()) line += ' ';
    line += word;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

void print_row(const std::array<std::string, 6>& cells, std::ostream& out) {
  std::array<std::vector<std::string>, 6> wrapped;
  std::size_t height = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    wrapped[i] = wrap(cells[i], widths[i]);
    height = std::max(height, wrapped[i].size());
  }
  for (std::size_t line = 0; line < height; ++line) {
    std::string text;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const std::string part = line < wrapped[i].size() ? wrapped[i][line] : std::string{};
      text += part;
      if (i + 1 < cells.size()) text += std::string(widths[i] - part.size(), ' ') + " | ";
    }
    while (!text.empty() && text.back() == ' ')
      text.pop_back();
    out << text << '\n';
  }
}

void print_rule(std::ostream& out) {
  std::size_t total = 0;
  for (auto w : widths)
    total += w;
  out << std::string(total + 3 * (widths.size() - 1), '-') << '\n';
}

std::string exit_words(const conform_report& r) {
  std::vector<std::string> failed;
  for (const auto& c : r.checks) {
    if (c.result == verdict::fail) failed.push_back(c.id);
  }
  switch (conform_exit_status(r)) {
    case exit_conform_broken: {
      std::string ids;
      for (const auto& id : failed)
        ids += (ids.empty() ? "" : ", ") + id;
      return "exit 1: this backend breaks what exactly-once relies on (" + ids + ")";
    }
    case exit_conform_inconclusive:
      return "exit 3: no failure found, but some checks could not be completed";
    default:
      return "exit 0: nothing found that breaks exactly-once";
  }
}

}  // namespace

void print_table(const conform_report& report, std::ostream& out) {
  out << "idem-cli conform: " << report.url << " POST " << report.path << ", profile "
      << report.profile << ", race " << report.race << "\n\n";
  print_row({"check", "sent", "came back", "verdict", "certainty", "why it matters / idem setting"},
            out);
  print_rule(out);
  for (std::size_t i = 0; i < report.checks.size(); ++i) {
    const auto& c = report.checks[i];
    const std::string why = c.setting.empty() ? c.why : c.why + ". idem: " + c.setting;
    print_row({std::to_string(i + 1) + ". " + c.title, c.sent, c.came_back,
               std::string(to_string(c.result)), std::string(to_string(c.sure)), why},
              out);
    print_rule(out);
  }
  const auto n = count(report);
  out << report.checks.size() << " checks: " << n.pass << " pass, " << n.warn << " warn, " << n.fail
      << " FAIL, " << n.skip << " skip, " << n.error << " error\n";
  if (auto fit = recommended_profile(report)) {
    out << "profile: " << *fit
        << (*fit == report.profile
                ? " reads every answer right"
                : " reads every answer right (--profile " + report.profile + " misreads some)")
        << '\n';
  } else {
    out << "profile: none of ietf, stripe and generic reads every answer right: give the "
           "client a classifier of its own (docs/PROFILES.md)\n";
  }
  out << exit_words(report) << '\n';
}

}  // namespace idem::cli
