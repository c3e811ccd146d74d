#pragma once
// The mock server's command-line durations: the parser shared with idem-cli
// (common/duration.hpp, library idem_common_lib), under the server's namespace.

#include "common/duration.hpp"

namespace idem::mock {

using idem::common::parse_duration;

}  // namespace idem::mock
