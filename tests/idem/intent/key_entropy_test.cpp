// Idempotency keys carry what the contract promises (section 8): 122 random bits in a UUIDv4,
// 74 in a UUIDv7 (rand_a 12 + rand_b 62), minted per intent and never derived from what the
// intent says. The format itself (regex, v7 timestamp) is idempotency_key_test's; this file
// checks the random bits, statistically, over many keys.
//
// The bounds. Over n = 20,000 keys each random bit position is 1 in X ~ Binomial(n, 1/2) keys;
// each pair of random positions agrees in Binomial(n, 1/2) keys (independent fair bits agree
// half the time), and so does each position with itself in the key minted before. Hoeffding's
// inequality (exact, no normal approximation) gives P(|X - n/2| >= t) <= 2 exp(-2 t^2 / n);
// with t = 560 that is 2 exp(-31.36) < 4.9e-14. Both tests together check 2*122 + 122*121/2 =
// 7,625 (v4) and 2*74 + 74*73/2 = 2,849 (v7) counts, so a correct minter fails a run with
// probability below 10,474 * 4.9e-14 < 5.2e-10 (union bound). The band, 9,440 to 10,560
// (47.2 % to 52.8 %), still catches any bit that is fixed, copied from another bit, or taken
// from a counter.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "idem/idempotency_key.hpp"
#include "idem/intent.hpp"
#include "idem/orders.hpp"

namespace idem {
namespace {

constexpr std::size_t keys_per_run = 20'000;
constexpr std::size_t band = 560;  // see the file comment
constexpr std::size_t words = (keys_per_run + 63) / 64;

// Bit `i` of a UUID counts from the most significant bit of its first byte (RFC 9562's order).
using uuid_bits = std::array<bool, 128>;

// The 128 bits of a lower-case 8-4-4-4-12 UUID; a test failure (and all bits 0) otherwise.
uuid_bits bits_of(const std::string& uuid) {
  uuid_bits bits{};
  if (uuid.size() != 36) {
    ADD_FAILURE() << "not a UUID: " << uuid;
    return bits;
  }
  std::size_t bit = 0;
  for (std::size_t i = 0; i < uuid.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      EXPECT_EQ(uuid[i], '-') << uuid;
      continue;
    }
    const char c = uuid[i];
    const bool digit = c >= '0' && c <= '9';
    const bool letter = c >= 'a' && c <= 'f';
    if (!digit && !letter) ADD_FAILURE() << "not lower-case hex: " << uuid;
    const int nibble = digit ? c - '0' : letter ? c - 'a' + 10 : 0;
    for (int b = 3; b >= 0; --b)
      bits[bit++] = ((nibble >> b) & 1) != 0;
  }
  return bits;
}

// Where each bit of a format comes from.
struct layout {
  std::vector<std::size_t> random;                  ///< CSPRNG output
  std::vector<std::pair<std::size_t, bool>> fixed;  ///< position, value
};

// Version nibble at bits 48-51, variant 10 at bits 64-65 (RFC 9562 section 4).
layout uuid_layout(unsigned version, std::size_t first_random) {
  layout l;
  for (std::size_t b = 0; b < 4; ++b)
    l.fixed.emplace_back(48 + b, ((version >> (3 - b)) & 1) != 0);
  l.fixed.emplace_back(64, true);
  l.fixed.emplace_back(65, false);
  for (std::size_t b = first_random; b < 128; ++b) {
    if ((b < 48 || b > 51) && b != 64 && b != 65) l.random.push_back(b);
  }
  return l;
}

// One bit position over all keys, as a bit set (key k is bit k % 64 of word k / 64).
using column = std::array<std::uint64_t, words>;

std::size_t ones(const column& c) {
  std::size_t n = 0;
  for (auto w : c)
    n += static_cast<std::size_t>(std::popcount(w));
  return n;
}

std::size_t agreements(const column& a, const column& b) {
  std::size_t differ = 0;
  for (std::size_t w = 0; w < words; ++w)
    differ += static_cast<std::size_t>(std::popcount(a[w] ^ b[w]));
  return keys_per_run - differ;
}

bool in_band(std::size_t count) {
  constexpr std::size_t half = keys_per_run / 2;
  return count >= half - band && count <= half + band;
}

// Mints `keys_per_run` keys with `mint` and checks them against `l`: no duplicate, fixed bits
// fixed, and every random bit balanced, independent of every other random bit, and independent
// of the same bit in the key minted just before (a counter's lowest bit alternates).
template <class Mint>
void expect_random_bits(Mint mint, const layout& l) {
  std::vector<column> columns(128, column{});
  std::vector<std::size_t> serial_agreements(128, 0);
  std::set<std::string> seen;
  uuid_bits previous{};
  for (std::size_t k = 0; k < keys_per_run; ++k) {
    const std::string key = mint().str();
    ASSERT_TRUE(seen.insert(key).second) << "key minted twice: " << key;
    const auto bits = bits_of(key);
    for (const auto& [position, value] : l.fixed) {
      ASSERT_EQ(bits[position], value) << "bit " << position << " of " << key;
    }
    for (std::size_t b = 0; b < 128; ++b) {
      if (bits[b]) columns[b][k / 64] |= std::uint64_t{1} << (k % 64);
      // The first key is compared with its predecessor too: an all-zero one, a fair coin.
      if (bits[b] == previous[b]) ++serial_agreements[b];
    }
    previous = bits;
  }
  std::size_t failures = 0;
  const auto expect_in_band = [&](std::size_t count, const auto& what) {
    if (!in_band(count) && ++failures <= 10) {
      ADD_FAILURE() << what() << ": " << count << " of " << keys_per_run << " keys";
    }
  };
  for (auto b : l.random) {
    expect_in_band(ones(columns[b]), [&] { return "random bit " + std::to_string(b) + " is 1"; });
    expect_in_band(serial_agreements[b], [&] {
      return "random bit " + std::to_string(b) + " equals its value in the previous key";
    });
  }
  for (std::size_t i = 0; i < l.random.size(); ++i) {
    for (std::size_t j = i + 1; j < l.random.size(); ++j) {
      const auto a = l.random[i];
      const auto b = l.random[j];
      expect_in_band(agreements(columns[a], columns[b]), [&] {
        return "random bits " + std::to_string(a) + " and " + std::to_string(b) + " agree";
      });
    }
  }
  EXPECT_EQ(failures, 0u);
}

TEST(KeyEntropy, UuidV4KeysCarry122IndependentBalancedRandomBits) {
  const layout l = uuid_layout(4, 0);
  ASSERT_EQ(l.random.size(), 122u);
  expect_random_bits([] { return idempotency_key::mint(key_format::uuid_v4); }, l);
}

// One fixed timestamp for every key: whatever differs between them comes from rand_a and
// rand_b alone, not from the clock (a counter or the time in rand_a would fail the band).
TEST(KeyEntropy, UuidV7KeysCarry74IndependentBalancedRandomBitsBesideTheirTimestamp) {
  const std::chrono::system_clock::time_point at{std::chrono::milliseconds{0x0123456789ABLL}};
  layout l = uuid_layout(7, 48);
  ASSERT_EQ(l.random.size(), 74u);
  for (std::size_t b = 0; b < 48; ++b)
    l.fixed.emplace_back(b, ((0x0123456789ABULL >> (47 - b)) & 1) != 0);
  expect_random_bits([&] { return idempotency_key::mint_v7(at); }, l);
}

// Keys are never derived from what an intent says (payload, path, merchant_order_id, customer
// or product IDs): intents that say exactly the same thing still get keys of their own.
TEST(KeyEntropy, IdenticalIntentsGetDifferentKeys) {
  const orders::order_request order{
      .merchant_order_id = "m-1",
      .customer_id = "cus_1",
      .currency = "EUR",
      .amount_minor = 1500,
      .items = {{.sku = "book", .quantity = 3, .unit_price_minor = 500}}};
  const orders::payment_request payment{.amount_minor = 1500, .currency = "EUR"};
  constexpr int per_kind = 500;
  for (const auto format : {key_format::uuid_v4, key_format::uuid_v7}) {
    std::set<std::string> keys;
    int minted = 0;
    const auto add = [&](const idempotency_key& key) {
      keys.insert(key.str());
      ++minted;
    };
    const intent first_order = orders::create(order, format);
    for (int i = 0; i < per_kind; ++i) {
      add(orders::create(order, format).key());
      add(orders::pay("ord_1", payment, format).key());
      add(orders::plan_payment(first_order, payment, format).key());
      add(orders::cancel("ord_1", "changed my mind", format).key());
      add(intent::create({"POST", "/v1/orders"}, {{"merchant_order_id", "m-1"}}, {}, format).key());
    }
    EXPECT_EQ(keys.size(), static_cast<std::size_t>(minted))
        << (format == key_format::uuid_v4 ? "v4" : "v7");
  }
}

}  // namespace
}  // namespace idem
