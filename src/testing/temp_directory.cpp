#include "testing/temp_directory.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

namespace idem::testing::detail {

mock_result<temp_directory> temp_directory::make() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/idem-mock-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr) {
    return mock_error{mock_errc::temp_dir_failed, pattern + ": " + std::strerror(errno)};
  }
  return temp_directory{std::string(buffer.data())};
}

temp_directory::~temp_directory() {
  remove();
}

temp_directory::temp_directory(temp_directory&& other) noexcept
    : path_(std::exchange(other.path_, {})) {}

temp_directory& temp_directory::operator=(temp_directory&& other) noexcept {
  if (this != &other) {
    remove();
    path_ = std::exchange(other.path_, {});
  }
  return *this;
}

void temp_directory::remove() noexcept {
  if (path_.empty()) return;
  std::error_code ignored;  // a test's leftovers in /tmp are not worth failing it for
  std::filesystem::remove_all(path_, ignored);
  path_.clear();
}

}  // namespace idem::testing::detail
