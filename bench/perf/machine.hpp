#pragma once
// The machine a report was measured on: figures mean nothing without it.

#include <string>
#include <utility>
#include <vector>

namespace perf {

/// Named facts, in the order the report prints them.
using machine_facts = std::vector<std::pair<std::string, std::string>>;

/// CPU model, cores, memory, kernel, the disk and file system under `work_dir` (where the
/// databases and journals are written), the compiler of this harness, libcurl, SQLite, and the
/// commit and date given by the caller.
[[nodiscard]] machine_facts describe_machine(const std::string& work_dir, const std::string& commit,
                                             const std::string& sqlite_version);

}  // namespace perf
