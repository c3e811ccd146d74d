#pragma once
// A database path in a folder of its own in the temp directory, removed (with its WAL,
// shared-memory and lock files) when the object goes away.

#include <string>

#include "common/temp_directory.hpp"

namespace idem::kit {

class temp_db_file {
 public:
  [[nodiscard]] std::string path() const { return dir_.file("test.db"); }

 private:
  common::temp_directory dir_{"idem_test_db_"};
};

}  // namespace idem::kit
