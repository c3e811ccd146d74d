# GoogleTest for the test programs: GTest::gtest and GTest::gtest_main, and the GoogleTest module
# (gtest_discover_tests). Debian's libgtest-dev is a library compiled against libstdc++; a build
# on libc++ (IDEM_USES_LIBCXX, cmake/libcxx.cmake) compiles GoogleTest itself from the sources
# Debian ships in /usr/src/googletest (package googletest, which libgtest-dev depends on), the
# same version as the library, so nothing is downloaded. IDEM_GTEST_FROM_SOURCE forces either
# way; IDEM_GTEST_SOURCE_DIR names another source tree. Included wherever tests are defined.
include(GoogleTest)
if(TARGET GTest::gtest_main)
  return()
endif()
option(IDEM_GTEST_FROM_SOURCE "Compile GoogleTest from its sources (default: under libc++)"
  ${IDEM_USES_LIBCXX})
set(IDEM_GTEST_SOURCE_DIR /usr/src/googletest CACHE PATH
  "GoogleTest's sources, compiled with IDEM_GTEST_FROM_SOURCE")
if(NOT IDEM_GTEST_FROM_SOURCE)
  find_package(GTest REQUIRED)
  return()
endif()
if(NOT EXISTS ${IDEM_GTEST_SOURCE_DIR}/googletest/CMakeLists.txt)
  message(FATAL_ERROR "IDEM_GTEST_FROM_SOURCE: no GoogleTest sources in ${IDEM_GTEST_SOURCE_DIR} "
                      "(Debian: package googletest; scripts/setup.sh installs it)")
endif()
# Only GoogleTest (the tests use no GoogleMock), not installed with idem. SYSTEM: its headers
# are third-party code like the installed ones, outside the project's warnings. It is compiled
# without the project's sanitizer flags, like the installed library the other builds link.
set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
add_subdirectory(${IDEM_GTEST_SOURCE_DIR} ${PROJECT_BINARY_DIR}/googletest EXCLUDE_FROM_ALL SYSTEM)
message(STATUS "idem: GoogleTest compiled from ${IDEM_GTEST_SOURCE_DIR}")
