#pragma once
// The path of the idem-mock-server this build made, for tests that hand it to the public test
// kit (idem::kit::mock_server_options::binary). Kept out of the test files' compile
// definitions so that they share the precompiled header.

#include <string>

namespace idem::kit {

[[nodiscard]] std::string built_mock_server_binary();

}  // namespace idem::kit
