#pragma once
// A fresh directory in the temp directory, removed with everything in it when the object goes
// away: one per test, for files that come in families (a journal with its -wal, -shm and .lock
// files, a server database). The tree's one temporary-folder helper, named for the tests.

#include "common/temp_directory.hpp"

namespace idem::kit {

/// `$TMPDIR/idem_test_XXXXXX`; throws std::runtime_error if it cannot be made.
class temp_dir : public common::temp_directory {
 public:
  temp_dir() : common::temp_directory("idem_test_") {}
};

}  // namespace idem::kit
