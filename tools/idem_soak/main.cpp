// idem-soak: the soak harness of issue 10 (docs/RELIABILITY.md). Its logic lives in
// idem_soak_lib; this only passes argv, its own directory and the streams.
#include <curl/curl.h>

#include <filesystem>
#include <iostream>

#include "idem_soak/run_soak.hpp"

int main(int argc, char** argv) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) self = std::filesystem::absolute(argv[0]);
  const int status = idem::soak::run_soak({argv + 1, argv + argc}, self.parent_path().string(),
                                          std::cout, std::cerr);
  curl_global_cleanup();
  return status;
}
