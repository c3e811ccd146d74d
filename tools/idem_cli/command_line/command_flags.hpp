#pragma once
// Each command's values read into what it was asked to do (command_line.hpp), or why that is a
// usage error: the ranges, forms and combinations of the flags. Which flags exist and which are
// given more than once, missing or unknown is the shared reader's (common/command_line.cpp).

#include <string_view>

#include "common/command_line.hpp"
#include "idem_cli/command_line/command_line.hpp"

namespace idem::cli {

/// What command `name` was asked for with `flags`, or a usage_error saying what is wrong.
[[nodiscard]] command read_command(std::string_view name, const common::flag_values& flags);

}  // namespace idem::cli
