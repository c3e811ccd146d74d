# The C++ standard library: the compiler's default (libstdc++ with GCC and with Debian's clang),
# or clang's libc++, the one Android's NDK and Apple's toolchains ship.
#   -DCMAKE_CXX_COMPILER=clang++-16 -DIDEM_LIBCXX=ON    (Debian: libc++-16-dev, libc++abi-16-dev)
# IDEM_LIBCXX adds -stdlib=libc++ to every C++ compile and link of the project, third-party code
# built inside it (GoogleTest) included, so that no object is left on the other library: the two
# are not ABI-compatible (std::string, std::function, ... are different types). A toolchain whose
# default is libc++ (the NDK's, Apple's) needs no option: IDEM_USES_LIBCXX is what the compiler
# really uses, read from <version>.
# The C libraries idem links (libcurl, OpenSSL, SQLite) are C and serve both; Boost's Asio and
# Beast, nlohmann_json and CLI11 are header-only. Debian's GoogleTest library is built against
# libstdc++, so a libc++ build compiles GoogleTest from Debian's sources (cmake/googletest.cmake),
# and every test program checks after linking that libstdc++ is not among the libraries it loads
# (idem_check_standard_library below).
option(IDEM_LIBCXX "Compile and link with clang's libc++ (-stdlib=libc++)" OFF)
if(IDEM_LIBCXX)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "IDEM_LIBCXX=ON needs clang (e.g. -DCMAKE_CXX_COMPILER=clang++-16); "
                        "${CMAKE_CXX_COMPILER_ID} has no -stdlib")
  endif()
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-stdlib=libc++>)
  add_link_options($<$<LINK_LANGUAGE:CXX>:-stdlib=libc++>)
endif()

# Checked at every configure (one small compile): a cached answer would outlive a change of flags.
include(CheckCXXSourceCompiles)
unset(IDEM_USES_LIBCXX CACHE)
set(CMAKE_REQUIRED_QUIET ON)
if(IDEM_LIBCXX)
  set(CMAKE_REQUIRED_FLAGS -stdlib=libc++)
endif()
check_cxx_source_compiles([[
#include <version>
#ifndef _LIBCPP_VERSION
#error not libc++
#endif
int main() {}
]] IDEM_USES_LIBCXX)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_QUIET)
if(IDEM_LIBCXX AND NOT IDEM_USES_LIBCXX)
  message(FATAL_ERROR "IDEM_LIBCXX=ON, but ${CMAKE_CXX_COMPILER} -stdlib=libc++ cannot compile "
                      "against libc++: install libc++-16-dev and libc++abi-16-dev (scripts/setup.sh)")
endif()
if(IDEM_USES_LIBCXX)
  message(STATUS "idem: C++ standard library: libc++")
endif()

# A program linked against libc++ that also loads libstdc++ (through a C++ library built for it)
# has two standard libraries: it may link and then fail at run time, or pass its tests with the
# other library's code. Under libc++, TARGET's build fails if ldd lists libstdc++ among the
# libraries it loads, directly or through another.
function(idem_check_standard_library target)
  if(IDEM_USES_LIBCXX AND NOT CMAKE_CROSSCOMPILING)
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${target}>
        -P ${PROJECT_SOURCE_DIR}/cmake/check_no_libstdcxx.cmake
      VERBATIM)
  endif()
endfunction()
