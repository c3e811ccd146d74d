#pragma once
/// @file
/// Where the test kit finds the idem-mock-server binary.

#include <string>

#include "idem/testing/mock_result.hpp"

namespace idem::kit {

/// The idem-mock-server of the installed package an app was built against: set by the CMake
/// package (find_package(idem) gives idem::testing's users the definition, computed from where
/// the package is found, so an install moved with `--prefix` or copied elsewhere is still
/// found); empty when the app was not built with the CMake package.
#ifndef IDEM_TESTING_PACKAGE_MOCK_SERVER
#define IDEM_TESTING_PACKAGE_MOCK_SERVER ""
#endif

/// The idem-mock-server to run, the first of:
///  1. `explicit_path`, when not empty;
///  2. the environment variable `IDEM_MOCK_SERVER`, when set and not empty;
///  3. `package_server`: the server of the package the app was built against, when it exists
///     there (by default IDEM_TESTING_PACKAGE_MOCK_SERVER, as the app's build defines it);
///  4. `idem-mock-server` in the bin directory of the prefix idem was configured to install
///     into (CMAKE_INSTALL_PREFIX when the kit was built), when it exists there;
///  5. `idem-mock-server` on `PATH`.
/// A path given by 1 or 2 must be an executable file: it is not passed over for the next place.
/// Returns mock_errc::server_not_found, listing every place looked at, when none has it.
/// Thread-safe (reads the environment).
[[nodiscard]] mock_result<std::string> find_mock_server(
    const std::string& explicit_path = {},
    const std::string& package_server = IDEM_TESTING_PACKAGE_MOCK_SERVER);

}  // namespace idem::kit
