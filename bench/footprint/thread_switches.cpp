#include "thread_switches.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string_view>

namespace idem::footprint {

std::vector<thread_switches> read_thread_switches() {
  std::vector<thread_switches> threads;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    thread_switches t;
    t.tid = std::strtol(task.path().filename().c_str(), nullptr, 10);
    std::ifstream in(task.path() / "status");
    std::string line;
    // A thread that ended meanwhile leaves an unreadable file: it is skipped.
    bool read_any = false;
    while (std::getline(in, line)) {
      const auto value = [&](std::string_view field) -> const char* {
        return line.starts_with(field) ? line.c_str() + field.size() : nullptr;
      };
      if (const char* v = value("Name:")) {
        t.name = std::string(v);
        t.name.erase(0, t.name.find_first_not_of(" \t"));
        read_any = true;
      } else if (const char* v = value("voluntary_ctxt_switches:")) {
        t.voluntary = std::strtoull(v, nullptr, 10);
      } else if (const char* v = value("nonvoluntary_ctxt_switches:")) {
        t.involuntary = std::strtoull(v, nullptr, 10);
      }
    }
    if (read_any) threads.push_back(std::move(t));
  }
  std::sort(threads.begin(), threads.end(),
            [](const thread_switches& a, const thread_switches& b) { return a.tid < b.tid; });
  return threads;
}

}  // namespace idem::footprint
