#pragma once
// Fuzz inputs in the text formats of this folder are read line by line, so that seeds can be
// written by hand and libFuzzer's mutations keep their shape.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace idem::fuzz {

/// The input as text.
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Removes and returns the first line of `input` (without its "\n", and without a "\r" before
/// it); the whole rest when there is no "\n".
inline std::string_view next_line(std::string_view& input) {
  const auto end = input.find('\n');
  std::string_view line = input.substr(0, end);
  input = end == std::string_view::npos ? std::string_view{} : input.substr(end + 1);
  if (line.ends_with('\r')) line.remove_suffix(1);
  return line;
}

/// Removes and returns the first space-separated word of `line`.
inline std::string_view next_word(std::string_view& line) {
  const auto end = line.find(' ');
  const std::string_view word = line.substr(0, end);
  line = end == std::string_view::npos ? std::string_view{} : line.substr(end + 1);
  return word;
}

}  // namespace idem::fuzz
