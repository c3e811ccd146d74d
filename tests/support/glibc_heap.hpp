#pragma once
// Heap bytes in use as glibc's malloc counts them (mallinfo2: chunk sizes, malloc's own
// overhead included, main arena: allocations of the calling thread when it is the main one),
// for tests that bound what a structure allocates. A sanitizer's allocator is not glibc's:
// under one there is no count (nullopt), and such a test skips.

#include <malloc.h>

#include <cstddef>
#include <optional>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define IDEM_TEST_FOREIGN_MALLOC 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define IDEM_TEST_FOREIGN_MALLOC 1
#endif

namespace idem::test {

inline std::optional<std::size_t> glibc_heap_in_use() {
#ifdef IDEM_TEST_FOREIGN_MALLOC
  return std::nullopt;
#else
  return mallinfo2().uordblks;
#endif
}

}  // namespace idem::test
