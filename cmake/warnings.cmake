# Project-wide warning flags, applied through one interface target so that
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
