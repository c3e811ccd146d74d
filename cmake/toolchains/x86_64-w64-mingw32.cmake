# Cross-compiling for 64-bit Windows with Debian's mingw-w64 (package g++-mingw-w64-x86-64), in
# its posix thread model (x86_64-w64-mingw32-g++-posix: GCC 12's std::thread, std::mutex and
# std::condition_variable need winpthreads; the win32 model has none of them before GCC 13).
# A program built so ships libwinpthread-1.dll, or links it statically (-static).
#
#   cmake -S cmake/windows -B build-windows \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/x86_64-w64-mingw32.cmake
# is what scripts/windows.sh runs (the SDK's objects, compiled against the C libraries' headers
# only: docs/PLATFORMS.md). An app that has mingw builds of libcurl, OpenSSL and SQLite adds
# their prefix to CMAKE_FIND_ROOT_PATH (or sets CURL_ROOT, OPENSSL_ROOT_DIR, SQLite3_ROOT).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)

# Libraries, headers and CMake packages only from the mingw root (never the build machine's
# /usr/include, whose glibc headers would be taken for Windows'); programs from the build machine.
list(APPEND CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
