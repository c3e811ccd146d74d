#pragma once
// Where a soak keeps its files: the server's database, the client's journal, the fault rule
// sets it installed and every program's log, so that a failed run can be read afterwards.

#include <cstdint>
#include <string>

namespace idem::soak {

struct work_dir {
  std::string path;
  bool created = false;  ///< made by the soak (a temporary one): removable when the run passed
  [[nodiscard]] std::string file(const std::string& name) const { return path + "/" + name; }
  [[nodiscard]] std::string server_db() const { return file("server.db"); }
  [[nodiscard]] std::string journal() const { return file("client.journal"); }
  [[nodiscard]] std::string server_log() const { return file("server.log"); }
  [[nodiscard]] std::string client_out() const { return file("client.out"); }
  [[nodiscard]] std::string client_err() const { return file("client.err"); }
};

/// `requested` (created if missing; it must not hold an earlier run's database or journal), or
/// a new directory `idem-soak-SEED-XXXXXX` in the temporary directory. Throws
/// std::runtime_error if it cannot.
[[nodiscard]] work_dir prepare_work_dir(const std::string& requested, std::uint64_t seed);

/// Removes a directory the soak created (one it was given is left alone).
void remove_work_dir(const work_dir& dir);

}  // namespace idem::soak
