#pragma once
// The values given to a command's flags, as the parser (CLI11, command_line.cpp) read them and
// the commands' readers (command_flags.cpp, common_flags.cpp) check them; and the count parser.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace idem::cli {

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

/// A positive count within [1, max].
[[nodiscard]] std::optional<std::size_t> parse_count(const std::string& text, std::size_t max);

}  // namespace idem::cli
