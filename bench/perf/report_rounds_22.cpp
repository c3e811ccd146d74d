// "What changed for speed", from the twenty-second round on (issue 47's CPU guard at its edge).

#include "report_rounds.hpp"

namespace perf {

std::string report_rounds_22_on() {
  return R"(
### Twenty-second round: the CPU guard at its edge, and what holds it there

Issue 47 kept issue 9's CPU target as a guard: at most 1.15× raw libcurl's CPU per intent at 16
in flight against the minimal server. Three harness runs from fresh clones in a row (5e9dda2,
3fdb631, 54d1682) read it at 1.16× (pairs 1.14–1.19×), a MISS by 0.01; a run of 7c65325 in the
working tree read 1.12×. By hand, with the same programs, pinned as the harness pins them,
38,600 requests a run, the paired median moved with the hour: nine series of 7 to 11 pairs
within one hour read 1.09×, 1.11×, 1.11×, 1.15×, 1.16×, 1.16×, 1.16×, 1.17× and 1.17×, with or
without a fresh server per run and whatever the token.

| change (commit) | effect |
|---|---|
| idem-cli load builds an order's merchant_order_id, customer and SKU in one allocation each (a prefix and `std::to_chars`), where three concatenations and `to_string` made 5.5 KiB of code at -O3; the transport trims a header value with two loops instead of `find_first_not_of` (54d1682) | cachegrind, 8,000 requests: 106.6k → 105.9k instructions a request, instruction-cache misses 2,323 → 2,269 a request |
| the whole build at -O2 instead of CMake's Release -O3 (by hand, not kept) | 0.7 % fewer instructions, 2.6 % fewer instruction-cache misses; CPU 1.01× the -O3 build (median of 9 paired triples with raw libcurl): no gain |
| the whole build with `-fno-plt` (by hand, not kept) | 0.4 % fewer instructions, 2.2 % fewer instruction-cache misses; CPU 1.00× the build without it (median of 11 paired triples): no gain |
| `idempotency_key` holding its text in shared immutable storage, so that a copy (each store event's, the registry's) costs a reference count instead of an allocation (by hand, not kept: it changes a public type's layout) | 107.9k → 107.7k instructions a request (callgrind, 8,000 requests, measured together): 0.2 % |

Where the rest of the difference is, counted (callgrind and cachegrind, 4,000 and 8,000
requests, the minimal server, 16 in flight):

- Instructions: idem-cli 105.9k a request against raw libcurl's 92.4k at 20,000 requests
  (1.146×). curl's own code runs fewer instructions under idem's transport (57.1k against
  63.7k a request); idem-cli's code is 19.4k, libc 27.7k against 25.0k.
- Allocation: idem-cli frees about 69 blocks a request, raw libcurl 50. idem's own 31 C++
  allocations a request cost 2.6k instructions in `operator new` and 3.2k in `operator delete`
  (5.4 % of the total). Most are the public value types' strings: a request's header list
  (its vector, the key's 36 bytes, two `application/json` values, one byte past the small-string
  buffer, and the URL), the response's (its vector and three fields), and copies of the key in
  the store's events and the outcome; then the flight, the store's and the registry's nodes, the
  outcome's fields, the answer's body.
- The instruction cache: 2,269 misses a request against raw libcurl's 1,300 (1.75×; data cache
  513 against 253, branch mispredictions 1,066 against 903). User CPU is 1.21–1.33× raw
  libcurl's where instructions are 1.15×; system CPU is the same for both (the same system
  calls: 2 `poll`, 1 `sendto`, 1 `recvfrom` a request, and 0.3 `epoll_wait` and timer calls more
  for idem).

So the guard holds or misses with the host's mood, 0.01–0.02 either side of its limit. Moving it
clear needs 3–5 % of idem-cli's CPU, and no single part holds that much: compiler flags gave
nothing, a key whose copies do not allocate 0.2 %. What remains is spread: a header list that
does not allocate a string per field (`http_request`, `http_response`: 9 allocations a request,
at most about 1.9k instructions or 1.8 %) and a cheaper memory store and single-flight registry
(3.1k and 0.8k instructions a request, of which perhaps 2k could go) together might reach it,
each a change to a public type or to what the store keeps.
)";
}

}  // namespace perf
