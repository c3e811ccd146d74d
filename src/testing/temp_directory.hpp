#pragma once
// A directory made with mkdtemp and removed with everything in it when its owner goes (private
// to the kit).

#include <string>

#include "idem/testing/mock_result.hpp"

namespace idem::testing::detail {

/// Movable, not copyable; a moved-from directory removes nothing.
class temp_directory {
 public:
  /// A new directory `$TMPDIR/idem-mock-XXXXXX` (TMPDIR defaults to /tmp).
  [[nodiscard]] static mock_result<temp_directory> make();
  ~temp_directory();
  temp_directory(temp_directory&& other) noexcept;
  temp_directory& operator=(temp_directory&& other) noexcept;
  temp_directory(const temp_directory&) = delete;
  temp_directory& operator=(const temp_directory&) = delete;

  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  explicit temp_directory(std::string path) : path_(std::move(path)) {}
  void remove() noexcept;
  std::string path_;
};

}  // namespace idem::testing::detail
