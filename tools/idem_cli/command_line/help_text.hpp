#pragma once
// What idem-cli's commands and flags are called and what the help says of them (contract section
// 9), as one table: the shared reader (common/command_line.hpp) declares the flags to CLI11 from
// it and checks the values given against it, so a flag cannot be accepted without being
// documented.

#include "common/command_line.hpp"

namespace idem::cli {

/// idem-cli: its commands (in the order `idem-cli --help` lists them), their flags (own, then
/// the common ones each takes) and helps.
[[nodiscard]] common::program_spec program();

}  // namespace idem::cli
