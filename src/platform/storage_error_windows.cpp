#ifdef _WIN32  // POSIX: storage_error_posix.cpp
#include "platform/storage_error.hpp"
#include "platform/windows_api.hpp"

namespace idem::detail {

storage_failure storage_failure_of(int system_error) noexcept {
  switch (static_cast<DWORD>(system_error)) {
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:  // (an NTFS quota reached reports ERROR_DISK_FULL too)
      return storage_failure::full;
    case ERROR_ACCESS_DENIED:
    case ERROR_WRITE_PROTECT:
      return storage_failure::denied;
    default:
      return storage_failure::none_known;
  }
}

}  // namespace idem::detail
#endif  // _WIN32
