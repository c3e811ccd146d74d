#pragma once
/// @file
/// The idem test kit in one include (CMake target idem::testing, docs/TESTING.md): the real
/// idem-mock-server as a child process, typed fault rules and presets, stats, the exactly-once
/// invariants, clock control. It needs no test framework.

#include "idem/testing/fault.hpp"                // IWYU pragma: export
#include "idem/testing/fault_set.hpp"            // IWYU pragma: export
#include "idem/testing/find_mock_server.hpp"     // IWYU pragma: export
#include "idem/testing/invariants.hpp"           // IWYU pragma: export
#include "idem/testing/mock_admin.hpp"           // IWYU pragma: export
#include "idem/testing/mock_errc.hpp"            // IWYU pragma: export
#include "idem/testing/mock_result.hpp"          // IWYU pragma: export
#include "idem/testing/mock_server_options.hpp"  // IWYU pragma: export
#include "idem/testing/mock_server_process.hpp"  // IWYU pragma: export
#include "idem/testing/mock_stats.hpp"           // IWYU pragma: export
