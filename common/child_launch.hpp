#pragma once
// Internal to common/child_process: starting a child as its spec says (its streams, its
// environment, posix_spawn or, for what that cannot do, fork + exec). child_process.cpp owns
// what runs afterwards: reading its pipes, waiting, signalling, reaping.

#include <sys/types.h>

#include <string>
#include <system_error>

#include "common/child_process.hpp"

namespace idem::common::detail {

/// A started child: its pid and the parent's ends of its stdout and stderr pipes (-1: none).
struct launched {
  pid_t pid = -1;
  int stdout_pipe = -1;
  int stderr_pipe = -1;
};

/// Starts `spec`'s program; on failure sets `ec` and `what` (the step that failed) and returns
/// an empty one (nothing left open, no child).
[[nodiscard]] launched launch(const child_spec& spec, std::error_code& ec, std::string& what);

}  // namespace idem::common::detail
