#pragma once
// A new folder made with mkdtemp, removed with everything in it when its owner goes: the one
// temporary-folder helper of the tree (the test kit, idem-soak, the tests and the benchmarks).
// Header-only, so that a part that includes it needs no library of common/ to link.

#include <stdlib.h>

#include <cerrno>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace idem::common {

/// Owns one folder. Movable, not copyable; an empty, moved-from or released one removes
/// nothing. Removal never fails its owner: leftovers in a temporary folder are not worth it.
class temp_directory {
 public:
  /// A new folder `<parent>/<prefix>XXXXXX`, only its owner may enter (mkdtemp's 0700); `parent`
  /// empty: the temporary folder ($TMPDIR, else /tmp). On failure `ec` is set and the result is
  /// empty.
  [[nodiscard]] static temp_directory make(std::string_view prefix, std::error_code& ec,
                                           const std::filesystem::path& parent = {}) {
    ec.clear();
    std::filesystem::path where = parent;
    if (where.empty()) where = std::filesystem::temp_directory_path(ec);
    if (ec) return {};
    std::string pattern = (where / (std::string(prefix) + "XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      ec.assign(errno, std::generic_category());
      return {};
    }
    temp_directory made;
    made.path_ = std::move(pattern);
    return made;
  }

  /// The same; throws std::runtime_error naming where it could not be made.
  explicit temp_directory(std::string_view prefix, const std::filesystem::path& parent = {}) {
    std::error_code ec;
    *this = make(prefix, ec, parent);
    if (ec) {
      const std::string where =
          parent.empty() ? std::string("the temporary folder") : parent.string();
      throw std::runtime_error("cannot make a folder " + std::string(prefix) + "XXXXXX in " +
                               where + ": " + ec.message());
    }
  }

  temp_directory() = default;
  ~temp_directory() { remove(); }
  temp_directory(temp_directory&& other) noexcept : path_(std::exchange(other.path_, {})) {}
  temp_directory& operator=(temp_directory&& other) noexcept {
    if (this != &other) {
      remove();
      path_ = std::exchange(other.path_, {});
    }
    return *this;
  }
  temp_directory(const temp_directory&) = delete;
  temp_directory& operator=(const temp_directory&) = delete;

  /// Empty for an empty folder object.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  /// The path of `name` inside the folder (nothing is created).
  [[nodiscard]] std::string file(const std::string& name) const { return (path_ / name).string(); }
  /// Leaves the folder on disk (e.g. a failed run's files, for reading) and returns its path.
  std::filesystem::path release() noexcept { return std::exchange(path_, {}); }

 private:
  void remove() noexcept {
    if (path_.empty()) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
    path_.clear();
  }

  std::filesystem::path path_;
};

}  // namespace idem::common
