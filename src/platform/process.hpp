#pragma once
// Internal: the process the SDK runs in: its id, and a hook for the child of a fork (POSIX:
// process_posix.cpp; Windows, which has no fork: process_windows.cpp).

#include <string>

namespace idem::detail {

/// This process's id, as text ("4242"): what a lock holder writes for the message of another.
[[nodiscard]] std::string process_id_text();

/// Has `handler` run in the child of every later fork (pthread_atfork), before fork returns
/// there. Windows has no fork: nothing is registered there.
void on_fork_child(void (*handler)()) noexcept;

}  // namespace idem::detail
