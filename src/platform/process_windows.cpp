#ifdef _WIN32  // POSIX: process_posix.cpp
#include "platform/process.hpp"
#include "platform/windows_api.hpp"

namespace idem::detail {

std::string process_id_text() {
  return std::to_string(::GetCurrentProcessId());
}

void on_fork_child(void (*)()) noexcept {
  // No fork on Windows: a new process starts afresh (CreateProcess) and never inherits memory.
}

}  // namespace idem::detail
#endif  // _WIN32
