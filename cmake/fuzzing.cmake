# libFuzzer targets (fuzz/): IDEM_FUZZ=ON, with clang and IDEM_SANITIZE=ON (ASan+UBSan). Every
# target of the project is then compiled with -fsanitize=fuzzer-no-link (the coverage and
# comparison hooks libFuzzer steers by; the sanitizer runtimes stub them out in any test program
# built alongside), and only the fuzz programs link libFuzzer itself (-fsanitize=fuzzer).
# CI builds just the target `fuzz` (the fuzz programs and the libraries they need) in a build of
# its own, with -DIDEM_BUILD_TESTS=OFF (docs/CI.md).
option(IDEM_FUZZ "Build the libFuzzer targets in fuzz/ (clang, with IDEM_SANITIZE=ON)" OFF)

if(IDEM_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "IDEM_FUZZ=ON needs clang (CXX=clang++); this is ${CMAKE_CXX_COMPILER_ID}")
  endif()
  string(TOLOWER "${IDEM_SANITIZE}" idem_fuzz_sanitize)
  if(NOT IDEM_SANITIZE OR idem_fuzz_sanitize STREQUAL "thread")
    message(FATAL_ERROR "IDEM_FUZZ=ON needs IDEM_SANITIZE=ON (AddressSanitizer + UBSan)")
  endif()
  target_compile_options(idem_build_flags INTERFACE -fsanitize=fuzzer-no-link)
  enable_testing()  # each fuzz program replays its seeds under CTest, with or without the tests
endif()
