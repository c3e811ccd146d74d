#include "machine.hpp"

#include <curl/curl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace perf {
namespace {

// The value of the first "name : value" line of a /proc file that starts with `name`.
std::string proc_field(const char* file, const std::string& name) {
  std::ifstream in{file};
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name, 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string{} : line.substr(start);
  }
  return "unknown";
}

// The mount that holds `path`: "device (fstype, mounted on X)".
std::string disk_of(const std::string& path) {
  std::error_code ec;
  const std::string target = std::filesystem::weakly_canonical(path, ec).string();
  std::ifstream in{"/proc/mounts"};
  std::string best_dir, best;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields{line};
    std::string device, dir, type;
    fields >> device >> dir >> type;
    const bool under = target == dir || target.rfind(dir == "/" ? dir : dir + "/", 0) == 0;
    if (under && dir.size() >= best_dir.size()) {
      best_dir = dir;
      best = device + " (" + type + ", mounted on " + dir + ")";
    }
  }
  return best.empty() ? "unknown" : best;
}

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

}  // namespace

machine_facts describe_machine(const std::string& work_dir, const std::string& commit,
                               const std::string& sqlite_version) {
  utsname u{};
  uname(&u);
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  const curl_version_info_data* curl = curl_version_info(CURLVERSION_NOW);
  return {
      {"date", utc_now()},
      {"commit", commit.empty() ? "unknown" : commit},
      {"CPU", proc_field("/proc/cpuinfo", "model name")},
      {"cores (online)", std::to_string(cores)},
      {"memory", proc_field("/proc/meminfo", "MemTotal")},
      {"kernel", std::string(u.sysname) + " " + u.release + " " + u.machine},
      {"database and journal directory", work_dir},
      {"its disk", disk_of(work_dir)},
      {"compiler, build type", IDEM_PERF_COMPILER},
      {"libcurl", curl != nullptr ? curl->version : "unknown"},
      {"SQLite", sqlite_version.empty() ? "unknown" : sqlite_version},
  };
}

}  // namespace perf
