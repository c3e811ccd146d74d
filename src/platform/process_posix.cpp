#ifndef _WIN32  // Windows: process_windows.cpp
#include <pthread.h>
#include <unistd.h>

#include "platform/process.hpp"

namespace idem::detail {

std::string process_id_text() {
  return std::to_string(::getpid());
}

void on_fork_child(void (*handler)()) noexcept {
  pthread_atfork(nullptr, nullptr, handler);
}

}  // namespace idem::detail
#endif  // _WIN32
