# Cross-compiling for arm64 (aarch64) Linux with Debian's cross toolchain (g++-aarch64-linux-gnu)
# and the arm64 libraries installed next to the build machine's own (multiarch: `dpkg
# --add-architecture arm64`, then e.g. libcurl4-openssl-dev:arm64). The test programs run under
# qemu-user (package qemu-user), also where CTest and gtest_discover_tests start them, so no
# binfmt_misc registration is needed. scripts/arm64.sh installs all of it, builds and runs the
# SDK's tests this way (docs/CI.md).
#
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Multiarch needs no sysroot (CMAKE_FIND_ROOT_PATH): the arm64 libraries, their headers with an
# architecture and their CMake packages are in /usr/lib/aarch64-linux-gnu and
# /usr/include/aarch64-linux-gnu of the build machine's own root, which find_library, find_path
# and find_package search for this architecture (and never its x86_64-linux-gnu twins); headers
# without an architecture (/usr/include: Boost, nlohmann/json) serve both; the cross compiler's
# own runtime (libstdc++, libc: what it links against) is in /usr/aarch64-linux-gnu, found by
# the compiler itself.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# pkg-config (FindCURL and FindOpenSSL take hints from it) reads only the arm64 .pc files: the
# build machine's would send find_library to its own libraries first.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# qemu-user runs the test programs on the arm64 runtime of the multiarch packages (libc6:arm64,
# libstdc++6:arm64: /lib/ld-linux-aarch64.so.1 and /usr/lib/aarch64-linux-gnu), the one the arm64
# libraries were built for; `-L /` turns qemu's path prefix off. Not `-L /usr/aarch64-linux-gnu`
# (the cross toolchain's runtime, for linking): its ld.so would load the multiarch libc.so.6
# (/etc/ld.so.cache lists it), and glibc's loader and libc of two different builds (2.36-8cross1
# and 2.36-9+deb12u14 in Debian 12) hang in the first pthread_create.
find_program(IDEM_QEMU_AARCH64 qemu-aarch64 REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR ${IDEM_QEMU_AARCH64} -L /)
