#include "idem_cli/load/file_limit.hpp"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>

namespace idem::cli {

std::string make_room_for_connections(std::size_t connections) {
  const auto needed = static_cast<rlim_t>(connections + spare_files);
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return std::string("cannot read the open-file limit: ") + std::strerror(errno);
  }
  if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= needed) return {};
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < needed) {
    return "--concurrency " + std::to_string(connections) + " needs " + std::to_string(needed) +
           " open files, and this process may open at most " + std::to_string(limit.rlim_max) +
           " (ulimit -Hn); lower --concurrency or raise the hard limit";
  }
  limit.rlim_cur = needed;
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return "cannot raise the open-file limit to " + std::to_string(needed) + ": " +
           std::strerror(errno);
  }
  return {};
}

}  // namespace idem::cli
