#include "idem_soak/work_dir.hpp"

#include <filesystem>
#include <stdexcept>

#include "common/temp_directory.hpp"

namespace idem::soak {

namespace fs = std::filesystem;

work_dir prepare_work_dir(const std::string& requested, std::uint64_t seed) {
  work_dir dir;
  if (requested.empty()) {
    // Kept when the run ends (remove_work_dir removes it once the run passed).
    dir.path = common::temp_directory("idem-soak-" + std::to_string(seed) + "-").release().string();
    dir.created = true;
    return dir;
  }
  dir.path = fs::absolute(requested).string();
  std::error_code ec;
  fs::create_directories(dir.path, ec);
  if (ec) throw std::runtime_error("cannot create --work-dir " + dir.path + ": " + ec.message());
  // A run's checks read the whole database and journal: an earlier run's rows would count.
  for (const auto& f : {dir.server_db(), dir.journal()}) {
    if (fs::exists(f)) {
      throw std::runtime_error(f + " exists (an earlier run?): give an empty --work-dir");
    }
  }
  return dir;
}

void remove_work_dir(const work_dir& dir) {
  if (!dir.created) return;
  std::error_code ignored;
  fs::remove_all(dir.path, ignored);
}

}  // namespace idem::soak
