#ifdef _WIN32  // POSIX: thread_name_posix.cpp
#include "platform/thread_name.hpp"
#include "platform/windows_api.hpp"

#include <cstring>

namespace idem::detail {

void name_this_thread(const char* name) noexcept {
  // Looked up, not linked: SetThreadDescription came with Windows 10 1607 (older systems run the
  // thread unnamed), and mingw-w64 10's headers do not declare it.
  using set_description = HRESULT(WINAPI*)(HANDLE, PCWSTR);
  const HMODULE kernel = ::GetModuleHandleW(L"kernel32.dll");
  if (kernel == nullptr) return;
  const FARPROC found = ::GetProcAddress(kernel, "SetThreadDescription");
  if (found == nullptr) return;
  set_description set = nullptr;
  static_assert(sizeof set == sizeof found);
  std::memcpy(&set, &found, sizeof set);  // between unrelated function pointer types
  wchar_t wide[16] = {};
  for (int i = 0; i < 15 && name[i] != '\0'; ++i)
    wide[i] = static_cast<wchar_t>(static_cast<unsigned char>(name[i]));  // ASCII
  set(::GetCurrentThread(), wide);
}

}  // namespace idem::detail
#endif  // _WIN32
