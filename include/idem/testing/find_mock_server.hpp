#pragma once
/// @file
/// Where the test kit finds the idem-mock-server binary.

#include <string>

#include "idem/testing/mock_result.hpp"

namespace idem::testing {

/// The idem-mock-server to run, the first of:
///  1. `explicit_path`, when not empty;
///  2. the environment variable `IDEM_MOCK_SERVER`, when set and not empty;
///  3. `idem-mock-server` in the bin directory of the prefix idem was configured to install
///     into (CMAKE_INSTALL_PREFIX when the kit was built), when it exists there;
///  4. `idem-mock-server` on `PATH`.
/// A path given by 1 or 2 must be an executable file: it is not passed over for the next place.
/// Returns mock_errc::server_not_found, listing every place looked at, when none has it.
/// Thread-safe (reads the environment).
[[nodiscard]] mock_result<std::string> find_mock_server(const std::string& explicit_path = {});

}  // namespace idem::testing
