#pragma once
// The options common to submit, load, resume and conform (contract section 9): how their values
// are read into common_args (which flags they are: help_text.cpp).

#include <string>

#include "common/command_line.hpp"
#include "idem_cli/command_line/command_line.hpp"

namespace idem::cli {

/// The options common to submit, load and resume; returns an error message or "".
[[nodiscard]] std::string read_common(const common::flag_values& flags, common_args& out);

}  // namespace idem::cli
