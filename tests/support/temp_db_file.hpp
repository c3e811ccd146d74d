#pragma once
// A database path in the temp directory, removed (with its WAL, shared-memory and lock files) when
// the object goes away.

#include <filesystem>
#include <random>
#include <string>

namespace idem::testing {

class temp_db_file {
 public:
  temp_db_file()
      : path_(std::filesystem::temp_directory_path() /
              ("idem_test_" + std::to_string(std::random_device{}()) + "_" +
               std::to_string(std::random_device{}()) + ".db")) {}
  ~temp_db_file() {
    for (const char* suffix : {"", "-wal", "-shm", ".lock"}) {
      std::error_code ignored;
      std::filesystem::remove(path_.string() + suffix, ignored);
    }
  }
  temp_db_file(const temp_db_file&) = delete;
  temp_db_file& operator=(const temp_db_file&) = delete;
  [[nodiscard]] std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace idem::testing
