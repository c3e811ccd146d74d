#pragma once
// What this process holds in memory right now, as Linux and glibc count it (for the footprint
// programs of bench/footprint/; Linux + glibc only).

#include <cstdint>
#include <string>

namespace idem::footprint {

/// One reading. Sizes in KiB as /proc/self/status gives them; heap in bytes.
struct memory_reading {
  std::uint64_t rss_kib = 0;       ///< VmRSS: resident now
  std::uint64_t anon_kib = 0;      ///< RssAnon: heap, stacks, anonymous mappings
  std::uint64_t file_kib = 0;      ///< RssFile: pages of mapped files (the libraries' code)
  std::uint64_t peak_rss_kib = 0;  ///< VmHWM: the most ever resident
  /// Bytes malloc has handed out and not had back, over every arena (malloc_info: what the
  /// arenas took from the system, minus their free chunks, plus mmapped chunks).
  std::uint64_t heap_bytes = 0;
};

/// Reads /proc/self/status and malloc_info; fields it cannot read stay 0.
[[nodiscard]] memory_reading read_memory();

/// One tab-separated line: `stage<TAB>name<TAB>rss<TAB>anon<TAB>file<TAB>peak<TAB>heap`.
[[nodiscard]] std::string stage_line(const std::string& name, const memory_reading& m);

}  // namespace idem::footprint
