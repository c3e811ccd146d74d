#include "timerfd_state.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace idem::footprint {
namespace {

// "(sec, nsec)" -> seconds.
double seconds_of(const std::string& pair) {
  const auto open = pair.find('(');
  const auto comma = pair.find(',');
  if (open == std::string::npos || comma == std::string::npos) return 0;
  const double sec = std::strtod(pair.c_str() + open + 1, nullptr);
  const double nsec = std::strtod(pair.c_str() + comma + 1, nullptr);
  return sec + nsec / 1e9;
}

}  // namespace

std::vector<timerfd_state> read_timerfds() {
  std::vector<timerfd_state> timers;
  std::error_code ec;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    std::error_code link_ec;
    if (std::filesystem::read_symlink(fd.path(), link_ec).string() != "anon_inode:[timerfd]")
      continue;
    timerfd_state t;
    t.fd = std::atoi(fd.path().filename().c_str());
    std::ifstream info("/proc/self/fdinfo/" + fd.path().filename().string());
    std::string line;
    while (std::getline(info, line)) {
      if (line.starts_with("it_value:")) {
        const double left = seconds_of(line);
        if (left > 0) t.fires_in_seconds = left;
      } else if (line.starts_with("it_interval:")) {
        t.interval_seconds = seconds_of(line);
      }
    }
    timers.push_back(t);
  }
  return timers;
}

}  // namespace idem::footprint
