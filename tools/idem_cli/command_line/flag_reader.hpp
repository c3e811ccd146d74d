#pragma once
// How idem-cli reads a subcommand's flags, by hand: which flags it accepts (flag_spec), the values
// given (flag_values), and the reader that checks the one against the other.

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace idem::cli {

/// The flags one subcommand accepts: those that take a value, those that may be given more than
/// once (with a value each), the switches, and the required ones.
struct flag_spec {
  std::set<std::string> valued;
  std::set<std::string> switches;
  std::set<std::string> required;
  std::set<std::string> repeatable{};
};

/// Every value given for each flag, in order (a switch: one empty value).
class flag_values {
 public:
  [[nodiscard]] bool has(const std::string& name) const { return values_.count(name) != 0; }
  /// The value of a flag given once ("" if absent).
  [[nodiscard]] std::string get(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? std::string() : it->second.front();
  }
  [[nodiscard]] std::vector<std::string> all(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? std::vector<std::string>() : it->second;
  }
  void add(const std::string& name, std::string value) {
    values_[name].push_back(std::move(value));
  }

 private:
  std::map<std::string, std::vector<std::string>> values_;
};

/// Reads `--name value`, `--name=value` and `--switch` into `out`; returns an error message or "".
[[nodiscard]] std::string read_flags(const std::vector<std::string>& args, std::size_t first,
                                     const flag_spec& spec, flag_values& out);

/// A positive count within [1, max].
[[nodiscard]] std::optional<std::size_t> parse_count(const std::string& text, std::size_t max);

}  // namespace idem::cli
