#pragma once
// Internal: names the calling thread for top, perf and debuggers (thread_name_posix.cpp,
// thread_name_windows.cpp). Best effort everywhere: a thread without a name works the same.

namespace idem::detail {

/// Names the calling thread `name` (ASCII, at most 15 characters: Linux's limit) where the system
/// can: Linux and Apple (pthread_setname_np), Windows 10 1607 and later (SetThreadDescription).
void name_this_thread(const char* name) noexcept;

}  // namespace idem::detail
