#ifndef _WIN32  // Windows: storage_error_windows.cpp
#include <cerrno>

#include "platform/storage_error.hpp"

namespace idem::detail {

storage_failure storage_failure_of(int system_error) noexcept {
  if (system_error == ENOSPC || system_error == EDQUOT) return storage_failure::full;
  if (system_error == EACCES || system_error == EPERM || system_error == EROFS)
    return storage_failure::denied;
  return storage_failure::none_known;
}

}  // namespace idem::detail
#endif  // _WIN32
