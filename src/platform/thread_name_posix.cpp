#ifndef _WIN32  // Windows: thread_name_windows.cpp
#include <pthread.h>

#include "platform/thread_name.hpp"

namespace idem::detail {

void name_this_thread(const char* name) noexcept {
#if defined(__linux__)
  pthread_setname_np(pthread_self(), name);
#elif defined(__APPLE__)
  pthread_setname_np(name);  // Apple's names only the calling thread
#else
  (void)name;
#endif
}

}  // namespace idem::detail
#endif  // _WIN32
