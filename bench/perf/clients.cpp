#include "clients.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "child_usage.hpp"

namespace perf {
namespace {

constexpr const char* tenant_token = "perf-tenant";

std::vector<std::string> idem_argv(const client_setup& setup, const load_shape& shape) {
  std::vector<std::string> argv = {setup.idem_cli,  "load",
                                   "--url",         shape.url,
                                   "--token",       tenant_token,
                                   "--orders",      std::to_string(shape.requests),
                                   "--concurrency", std::to_string(shape.concurrency)};
  if (shape.deadline.count() > 0) {
    argv.insert(argv.end(), {"--deadline", std::to_string(shape.deadline.count()) + "ms"});
  }
  if (!shape.journal.empty()) argv.insert(argv.end(), {"--journal", shape.journal});
  return argv;
}

// The fsync-family system calls strace counted (its -c summary in `path`): the "total" row's
// calls, 0 when there was none.
std::uint64_t sync_calls_in(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::uint64_t total = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f{std::istream_iterator<std::string>(fields),
                               std::istream_iterator<std::string>()};
    // % time, seconds, usecs/call, calls, [errors,] syscall
    if (f.size() >= 5 && f.back() == "total") total = std::stoull(f[3]);
  }
  return total;
}

constexpr const char* sync_family = "trace=fsync,fdatasync,sync_file_range,syncfs,msync";

// idem_raw_curl_load, idem_transport_load and idem_floor_load share their command line
// (load_request.hpp).
std::vector<std::string> baseline_argv(const std::string& program, const load_shape& shape) {
  const auto timeout = shape.deadline.count() > 0 ? shape.deadline.count() : 30'000;
  return {program,
          "--url",
          shape.url,
          "--token",
          tenant_token,
          "--requests",
          std::to_string(shape.requests),
          "--concurrency",
          std::to_string(shape.concurrency),
          "--timeout-ms",
          std::to_string(timeout)};
}

void remove_journal(const std::string& journal) {
  if (journal.empty()) return;
  for (const char* suffix : {"", "-wal", "-shm", ".lock"})
    std::filesystem::remove(journal + suffix);
}

// The last line that parses as a JSON object (the summary comes last).
nlohmann::json last_json(const std::string& out) {
  std::size_t end = out.size();
  while (end > 0) {
    const auto begin = out.rfind('\n', end - 1);
    const auto from = begin == std::string::npos ? 0 : begin + 1;
    auto j = nlohmann::json::parse(out.substr(from, end - from), nullptr, false);
    if (!j.is_discarded() && j.is_object()) return j;
    if (begin == std::string::npos) break;
    end = begin;
  }
  return nlohmann::json{};
}

}  // namespace

const char* to_string(client_kind k) noexcept {
  switch (k) {
    case client_kind::idem:
      return "idem";
    case client_kind::raw:
      return "raw libcurl";
    case client_kind::transport:
      return "idem's transport alone";
    case client_kind::floor:
      return "an intent layer's floor";
  }
  return "?";
}

sample run_client(const client_setup& setup, client_kind kind, const load_shape& shape) {
  remove_journal(shape.journal);
  auto argv = kind == client_kind::idem        ? idem_argv(setup, shape)
              : kind == client_kind::raw       ? baseline_argv(setup.raw_curl_load, shape)
              : kind == client_kind::transport ? baseline_argv(setup.transport_load, shape)
                                               : baseline_argv(setup.floor_load, shape);
  const std::string counts = setup.work_dir + "/strace-counts.txt";
  if (!shape.strace.empty()) {
    std::filesystem::remove(counts);
    argv.insert(argv.begin(), {shape.strace, "-f", "-qq", "-c", "-o", counts, "-e", sync_family});
  }
  const child_usage u = run_to_end(argv, setup.work_dir + "/clients.log", setup.cpu);
  remove_journal(shape.journal);
  sample s{.requests = shape.requests,
           .ok = 0,
           .wall_s = u.wall_s,
           .cpu_s = u.cpu_s,
           .max_rss_kib = u.max_rss_kib,
           .bytes_written = u.bytes_written,
           .server_cpu_s = 0,
           .summary = last_json(u.out),
           .exit_status = u.exit_status};
  if (s.summary.is_null()) {
    throw std::runtime_error(std::string(to_string(kind)) + " printed no summary (exit status " +
                             std::to_string(u.exit_status) + "); see " + setup.work_dir +
                             "/clients.log");
  }
  s.ok = s.summary.value(kind == client_kind::idem ? "succeeded" : "ok", std::uint64_t{0});
  if (!shape.strace.empty()) s.sync_calls = sync_calls_in(counts);
  return s;
}

}  // namespace perf
