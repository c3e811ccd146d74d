#pragma once
// `idem-cli submit`: one intent, its outcome as one JSON object on stdout.

#include <ostream>

#include "idem_cli/command_line/command_line.hpp"

namespace idem::cli {

/// Submits the intent, prints its outcome as one JSON line on `out` and returns the exit status
/// (0 succeeded, 1 rejected, 3 not sent or unresolved). Blocks the calling thread until the
/// outcome (at most the deadline). Any outcome but succeeded is explained in one line on `err`
/// (`idem-cli: <outcome>: <why>`) and in the JSON's `error`. Ctrl-C cancels the intent: its
/// outcome (unresolved, or not_sent if nothing left) is still printed, and an unresolved
/// intent's key with how to finish it.
[[nodiscard]] int run_submit(const submit_args& args, std::ostream& out, std::ostream& err);

}  // namespace idem::cli
