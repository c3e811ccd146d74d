#pragma once
// A key's text with its hash, for the hash maps keyed by idempotency keys (private to the idem
// library).
//
// libstdc++ counts std::hash of a string (or string_view) as slow. Its unordered maps then
// skip hashing while they hold 20 entries or fewer and compare the key with every entry, one
// by one: with 16 intents in flight, about 13 memcmp calls a lookup, more than 50 an intent in
// the memory store alone. A key that carries its hash has a hasher that only reads it: always
// hashed, once per lookup, and the hash still kept in each node (in the key rather than beside
// it, the same size), so a lookup compares the text of about one entry.

#include <cstddef>
#include <string_view>

namespace idem::detail {

/// A hash of `text` that reads it eight bytes at a time (about 64 instructions for a
/// 36-character key, std::hash's 103). Not keyed: the keys are the client's own (minted, or
/// restored from its own journal), not chosen by whoever it talks to.
[[nodiscard]] std::size_t hash_text(std::string_view text) noexcept;

/// Views its text: valid while that text is.
struct hashed_key {
  explicit hashed_key(std::string_view t) noexcept : text(t), hash(hash_text(t)) {}

  std::string_view text;
  std::size_t hash;

  friend bool operator==(const hashed_key& a, const hashed_key& b) noexcept {
    return a.hash == b.hash && a.text == b.text;
  }
};

struct hashed_key_hash {
  [[nodiscard]] std::size_t operator()(const hashed_key& k) const noexcept { return k.hash; }
};

/// For maps whose keys are strings of their own (each node keeps its key's text): hash_text,
/// which libstdc++ counts as fast, so such a map hashes at every size. Deliberately not
/// noexcept: libstdc++ keeps a hash in each node only for a hasher that is slow or may throw,
/// and without one a lookup in a map of thousands of open intents would hash the keys of the
/// entries it passes (and a rehash every key) where it compares kept hashes; eight bytes a node,
/// as a std::hash-keyed map had.
struct text_hash {
  [[nodiscard]] std::size_t operator()(std::string_view text) const { return hash_text(text); }
};

}  // namespace idem::detail
