#include "tests/support/processes/mock_server_binary.hpp"

namespace idem::kit {

std::string built_mock_server_binary() {
  return IDEM_MOCK_SERVER_BINARY;
}

}  // namespace idem::kit
