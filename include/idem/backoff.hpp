#pragma once
/// @file
/// How long to wait before the next retry of an intent: capped exponential backoff with jitter.
/// Policies are values (the client draws each intent's delays from them).

#include <chrono>
#include <variant>

namespace idem {

/// Full jitter (the default): delay = uniform[0, min(cap, base * multiplier^(n-1))] for retry n.
/// Spreads retries the most; the mean wait is half of the exponential envelope.
struct full_jitter {
  std::chrono::milliseconds base{100};
  std::chrono::milliseconds cap{5000};
  double multiplier = 2.0;
};

/// Equal jitter: t = min(cap, base * multiplier^(n-1)); delay = t/2 + uniform[0, t/2].
/// Never waits less than half the envelope.
struct equal_jitter {
  std::chrono::milliseconds base{100};
  std::chrono::milliseconds cap{5000};
  double multiplier = 2.0;
};

/// Decorrelated jitter: delay = min(cap, uniform[base, previous * multiplier]), previous starting
/// at base. Grows from the last delay actually used rather than from the retry count.
struct decorrelated_jitter {
  std::chrono::milliseconds base{100};
  std::chrono::milliseconds cap{5000};
  double multiplier = 3.0;
};

using backoff_policy = std::variant<full_jitter, equal_jitter, decorrelated_jitter>;

}  // namespace idem
