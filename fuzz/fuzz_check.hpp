#pragma once
// A property every input must keep, checked in a fuzz target: a failure prints what broke and
// aborts, which libFuzzer reports as a crash and keeps the input for.

#include <cstdio>
#include <cstdlib>

#define IDEM_FUZZ_CHECK(condition)                                                          \
  do {                                                                                      \
    if (!(condition)) {                                                                     \
      std::fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                         \
    }                                                                                       \
  } while (false)
