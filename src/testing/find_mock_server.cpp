#include "idem/testing/find_mock_server.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string_view>
#include <vector>

namespace idem::kit {
namespace {

constexpr std::string_view server_name = "idem-mock-server";

bool executable_file(const std::string& path) {
  return !path.empty() && ::access(path.c_str(), X_OK) == 0 &&
         ::access((path + "/.").c_str(), F_OK) != 0;  // not a directory
}

// Set by src/testing/CMakeLists.txt: where `cmake --install` puts the server by default.
#ifndef IDEM_TESTING_INSTALLED_MOCK_SERVER
#define IDEM_TESTING_INSTALLED_MOCK_SERVER ""
#endif

}  // namespace

mock_result<std::string> find_mock_server(const std::string& explicit_path,
                                          const std::string& package_server) {
  if (!explicit_path.empty()) {
    if (executable_file(explicit_path)) return explicit_path;
    return mock_error{mock_errc::server_not_found,
                      "the path given (" + explicit_path + ") is not an executable file"};
  }
  const char* env = std::getenv("IDEM_MOCK_SERVER");
  if (env != nullptr && *env != '\0') {
    if (executable_file(env)) return std::string{env};
    return mock_error{mock_errc::server_not_found,
                      std::string{"IDEM_MOCK_SERVER="} + env + " is not an executable file"};
  }
  std::vector<std::string> looked{"$IDEM_MOCK_SERVER (not set)"};
  if (!package_server.empty()) {
    if (executable_file(package_server)) return package_server;
    looked.push_back(package_server);
  }
  const std::string installed = IDEM_TESTING_INSTALLED_MOCK_SERVER;
  if (!installed.empty()) {
    if (executable_file(installed)) return installed;
    looked.push_back(installed);
  }
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "";
  while (!dirs.empty()) {
    const auto colon = dirs.find(':');
    const std::string dir{dirs.substr(0, colon)};
    dirs = colon == std::string_view::npos ? std::string_view{} : dirs.substr(colon + 1);
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + std::string{server_name};
    if (executable_file(candidate)) return candidate;
  }
  looked.push_back("PATH");
  std::string where;
  for (const auto& l : looked)
    where += (where.empty() ? "" : ", ") + l;
  return mock_error{
      mock_errc::server_not_found,
      "looked at " + where + "; set IDEM_MOCK_SERVER or mock_server_options::binary to its path"};
}

}  // namespace idem::kit
