#pragma once
// The options common to submit, load, resume and conform (contract section 9): the flags they add
// to each command's own, and how their values are read into common_args.

#include <set>
#include <string>

#include "idem_cli/command_line/command_line.hpp"
#include "idem_cli/command_line/flag_reader.hpp"

namespace idem::cli {

/// A command's own flags with the common ones added (--header and --lookup-match repeatable,
/// --url and --token required).
[[nodiscard]] flag_spec with_common(std::set<std::string> valued, std::set<std::string> switches,
                                    std::set<std::string> required);

/// The options common to submit, load and resume; returns an error message or "".
[[nodiscard]] std::string read_common(const flag_values& flags, common_args& out);

}  // namespace idem::cli
