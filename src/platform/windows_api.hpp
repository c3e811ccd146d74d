#pragma once
// Internal, Windows only: what the Windows side of the platform layer shares (the *_windows.cpp
// files): <windows.h> without its min/max macros, UTF-8 paths as the wide strings of the W
// functions, and Windows errors as std::error_code.
#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <string>
#include <system_error>

namespace idem::detail {

/// `text` (UTF-8, as every path the SDK is given) as UTF-16 for the W functions; "" if it is not
/// valid UTF-8 (a W function then fails on the empty path).
[[nodiscard]] std::wstring wide_text(const std::string& text);

/// A Windows error code (GetLastError) as the std::errc value POSIX would report, where one
/// means the same, so that callers compare alike on every system; else the system category's.
[[nodiscard]] std::error_code windows_error(DWORD code) noexcept;

}  // namespace idem::detail
#endif  // _WIN32
