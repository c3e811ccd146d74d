#include "process_memory.hpp"

#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

namespace idem::footprint {
namespace {

// The number after `field:` in /proc/self/status ("VmRSS:     1234 kB"), 0 if absent.
std::uint64_t status_field(const std::string& status, std::string_view field) {
  const auto at = status.find(std::string(field) + ":");
  if (at == std::string::npos) return 0;
  return std::strtoull(status.c_str() + at + field.size() + 1, nullptr, 10);
}

// The size="N" of the element `<tag type="kind" ... size="N"/>` found first in `xml`.
std::uint64_t xml_size(std::string_view xml, std::string_view tag, std::string_view kind) {
  const std::string open = "<" + std::string(tag) + " type=\"" + std::string(kind) + "\"";
  const auto at = xml.find(open);
  if (at == std::string_view::npos) return 0;
  const auto size = xml.find("size=\"", at);
  if (size == std::string_view::npos) return 0;
  return std::strtoull(std::string(xml.substr(size + 6, 24)).c_str(), nullptr, 10);
}

// mallinfo2 sees the main arena only, and the client's event loop thread allocates in an arena
// of its own: malloc_info's totals cover them all. Its summary follows the last </heap>.
std::uint64_t heap_in_use() {
  char* buffer = nullptr;
  std::size_t length = 0;
  FILE* out = open_memstream(&buffer, &length);
  if (out == nullptr) return 0;
  const bool ok = malloc_info(0, out) == 0;
  std::fclose(out);
  std::string xml(buffer, length);
  std::free(buffer);
  if (!ok) return 0;
  const auto last_heap = xml.rfind("</heap>");
  const std::string_view totals =
      std::string_view(xml).substr(last_heap == std::string::npos ? 0 : last_heap);
  const std::uint64_t from_system = xml_size(totals, "system", "current");
  const std::uint64_t free_chunks =
      xml_size(totals, "total", "fast") + xml_size(totals, "total", "rest");
  const std::uint64_t mmapped = xml_size(totals, "total", "mmap");
  return (from_system > free_chunks ? from_system - free_chunks : 0) + mmapped;
}

}  // namespace

memory_reading read_memory() {
  std::ifstream in("/proc/self/status");
  std::stringstream text;
  text << in.rdbuf();
  const std::string status = text.str();
  return {.rss_kib = status_field(status, "VmRSS"),
          .anon_kib = status_field(status, "RssAnon"),
          .file_kib = status_field(status, "RssFile"),
          .peak_rss_kib = status_field(status, "VmHWM"),
          .heap_bytes = heap_in_use()};
}

std::string stage_line(const std::string& name, const memory_reading& m) {
  std::ostringstream line;
  line << "stage\t" << name << '\t' << m.rss_kib << '\t' << m.anon_kib << '\t' << m.file_kib << '\t'
       << m.peak_rss_kib << '\t' << m.heap_bytes;
  return line.str();
}

}  // namespace idem::footprint
