// The hash the maps keyed by idempotency keys use (src/util/hashed_key.hpp): equal texts hash
// alike, and texts that differ anywhere (a byte in a full word or in the tail, the order of two
// words, trailing zero bytes) hash apart, as a map needs to find one entry in a few probes.

#include "util/hashed_key.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <unordered_set>

#include "idem/idempotency_key.hpp"

namespace idem::detail {
namespace {

TEST(HashedKey, EqualTextsHashAlikeWhereverTheyLive) {
  const std::string a = "0b6f3c1e-8d2a-4f5b-9c7e-1a2b3c4d5e6f";
  const std::string b = a;  // another copy, another address
  EXPECT_EQ(hash_text(a), hash_text(b));
  EXPECT_EQ(hashed_key(a), hashed_key(b));
  EXPECT_EQ(hashed_key_hash{}(hashed_key(a)), hash_text(a));
}

TEST(HashedKey, TextsThatDifferInOneByteAnywhereHashApart) {
  // Every length from empty to past four words, a byte changed at every position: in a full
  // word, in the last word that overlaps the one before, in a text shorter than a word.
  for (std::size_t n = 1; n <= 40; ++n) {
    const std::string base(n, 'a');
    for (std::size_t at = 0; at < n; ++at) {
      std::string other = base;
      other[at] = 'b';
      EXPECT_NE(hash_text(base), hash_text(other)) << "length " << n << ", byte " << at;
      EXPECT_FALSE(hashed_key(base) == hashed_key(other));
    }
  }
}

TEST(HashedKey, LengthAndWordOrderCount) {
  EXPECT_NE(hash_text(""), hash_text(std::string(1, '\0')));
  EXPECT_NE(hash_text("a"), hash_text(std::string("a\0", 2)));
  EXPECT_NE(hash_text(std::string(8, '\0')), hash_text(std::string(16, '\0')));
  EXPECT_NE(hash_text("AAAAAAAABBBBBBBB"), hash_text("BBBBBBBBAAAAAAAA"));
}

TEST(HashedKey, KeysAsTheClientMintsThemDoNotCollide) {
  // Minted keys, and keys that share all but their last characters (merchant-style ids given
  // to from_string): 64-bit hashes of 40,000 distinct texts, none shared.
  std::unordered_set<std::size_t> seen;
  std::size_t texts = 0;
  for (int i = 0; i < 20'000; ++i) {
    seen.insert(hash_text(idempotency_key::mint().str()));
    seen.insert(hash_text("order-2026-11-30-" + std::to_string(i)));
    texts += 2;
  }
  EXPECT_EQ(seen.size(), texts);
}

#if defined(__GLIBCXX__)
// What the SQLite journal's maps (string keys, text_hash) rely on in libstdc++, which decides
// both from the hasher's type: hashed at every size (no linear scan of up to 20 entries, as for
// std::hash of a string), and each node keeping its key's hash, so that a lookup in a map of
// thousands of open intents compares kept hashes rather than hashing the keys of the entries
// it passes (nor does a rehash hash every key again).
TEST(HashedKey, TextHashedMapsHashAtEverySizeAndKeepTheHashInTheNode) {
  EXPECT_EQ(std::__detail::_Hashtable_hash_traits<text_hash>::__small_size_threshold(), 0U);
  EXPECT_TRUE((std::__cache_default<std::string, text_hash>::value));
}
#endif

}  // namespace
}  // namespace idem::detail
