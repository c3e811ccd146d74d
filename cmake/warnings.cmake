# Project-wide warning and sanitizer flags, applied through one interface target so that
# third-party code found on the system is not affected.
add_library(idem_build_flags INTERFACE)
target_compile_options(idem_build_flags INTERFACE -Wall -Wextra -Wpedantic)
# GCC 12 reports a false -Wmismatched-new-delete inside Asio's awaitable frames (its coroutine
# frame allocator pairs a custom operator new/delete that GCC cannot see through).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(idem_build_flags INTERFACE -Wno-mismatched-new-delete)
endif()
if(IDEM_WERROR)
  target_compile_options(idem_build_flags INTERFACE -Werror)
endif()
if(IDEM_SANITIZE)
  target_compile_options(idem_build_flags INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(idem_build_flags INTERFACE -fsanitize=address,undefined)
  # GCC documents that sanitizer instrumentation makes -Wmaybe-uninitialized report false
  # positives (seen in libstdc++'s std::function inside std::regex); the plain build keeps it.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(idem_build_flags INTERFACE -Wno-maybe-uninitialized)
  endif()
endif()
