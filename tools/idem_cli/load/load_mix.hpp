#pragma once
// `idem-cli load --mix`: which intents each order of a load gets besides its create (a
// payment, a cancel, double taps), drawn per order from a seed. The draw is a pure function of
// (mix, seed, order number), so a run's plan can be replayed, and counted by another program
// (idem-soak) that never sees the journal being written.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace idem::cli {

/// Per-order probabilities, each in [0, 1].
struct load_mix {
  double pay = 0;  ///< the order gets a payment
  /// The order gets a cancel, sent together with its payment if it has one: whichever the
  /// server executes second is refused (409) or, for a cancel after the payment, refunds it.
  double cancel = 0;
  /// A paid order gets a second payment intent (a new key, the same amount): the user tapped
  /// "pay" twice. At most one of the two may charge.
  double double_pay = 0;
  /// The order is submitted twice (a second create intent, a new key, the same
  /// merchant_order_id), right after the first: the user sent the same cart twice. At most one
  /// order may be created. The order's payment and cancel wait for the first create only.
  double double_order = 0;
};

/// What one order of a mixed load gets besides its create.
struct order_mix {
  bool double_order = false;
  bool pay = false;
  bool double_pay = false;  ///< only with pay
  bool cancel = false;
  /// The intents the order makes, its create included.
  [[nodiscard]] std::uint64_t intents() const noexcept {
    return 1u + double_order + pay + double_pay + cancel;
  }
};

/// How many intents of each kind a mixed load of some orders plans.
struct mix_counts {
  std::uint64_t creates = 0;  ///< one per order
  std::uint64_t double_orders = 0;
  std::uint64_t payments = 0;
  std::uint64_t double_payments = 0;
  std::uint64_t cancels = 0;
  [[nodiscard]] std::uint64_t total() const noexcept {
    return creates + double_orders + payments + double_payments + cancels;
  }
};

/// The draw for order `n` (from 0) of a load with `mix` and `seed`: independent uniform draws
/// per order and per choice (splitmix64), the same on every platform.
[[nodiscard]] order_mix mix_for_order(const load_mix& mix, std::uint64_t seed,
                                      std::size_t n) noexcept;

/// The counts over orders 0..orders-1.
[[nodiscard]] mix_counts count_mix(const load_mix& mix, std::uint64_t seed, std::size_t orders);

/// A share from 0 to 1 written as a decimal fraction: digits, a point, digits (either side may be
/// empty, not both; at most 15 digits after the point; no sign, no exponent), as the nearest
/// double; nullopt if the text is not one or the value is above 1. Locale-independent.
[[nodiscard]] std::optional<double> parse_share(std::string_view text);

/// Parses `pay=0.8,cancel=0.2,double-pay=0.1,double-order=0.05` (any subset, any order; a
/// missing name is 0). Returns the mix, or a message saying what is wrong (an unknown name, a
/// name given twice, a number that is not in [0, 1]).
[[nodiscard]] std::variant<load_mix, std::string> parse_load_mix(std::string_view text);

/// The form parse_load_mix reads back (every name, shortest round-tripping numbers).
[[nodiscard]] std::string to_string(const load_mix& mix);

}  // namespace idem::cli
