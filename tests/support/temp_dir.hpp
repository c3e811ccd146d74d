#pragma once
// A fresh directory in the temp directory, removed with everything in it when the object goes
// away: one per test, for files that come in families (a journal with its -wal, -shm and .lock
// files, a server database).

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace idem::testing {

class temp_dir {
 public:
  temp_dir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "idem_test_XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~temp_dir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  /// The path of `name` inside the directory (nothing is created).
  [[nodiscard]] std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace idem::testing
