# Sanitizer builds, applied through idem_build_flags (so third-party code found on the system is
# not instrumented twice). IDEM_SANITIZE picks the runtime:
#   OFF                           none (the default)
#   ON, address                   AddressSanitizer + UndefinedBehaviorSanitizer
#   thread                        ThreadSanitizer (run the tests labelled `threads` and `sdk`, docs/CI.md)
# Sanitizer builds keep line tables only (-g1): readable stacks at little build cost. ASan+UBSan
# compiles at -O0 (a third faster to build than -O1, and nothing optimised away from the checks;
# the tests it runs wait on sockets and processes, not on the CPU), also with IDEM_FUZZ (CI's
# fuzz runs are short; give -DIDEM_SANITIZE_OPTIMIZATION=-O1 for a long one: a fuzzer's speed is
# its executions per second); TSan at -O1, without which its tests run several times slower.
# IDEM_SANITIZER_FLAGS is what a consumer built against this tree must add (tests/package).
set(IDEM_SANITIZE OFF CACHE STRING "Sanitizers: OFF, ON (= address: ASan+UBSan) or thread (TSan)")
set_property(CACHE IDEM_SANITIZE PROPERTY STRINGS OFF ON address thread)
set(IDEM_SANITIZE_OPTIMIZATION "" CACHE STRING
  "Optimization of a RelWithDebInfo sanitizer build; empty: -O0 for ASan+UBSan, -O1 for TSan")

set(IDEM_SANITIZER_FLAGS "")
string(TOLOWER "${IDEM_SANITIZE}" idem_sanitize)
if(idem_sanitize STREQUAL "thread")
  set(IDEM_SANITIZER_FLAGS -fsanitize=thread)
  set(idem_sanitizer_optimization -O1)
elseif(idem_sanitize STREQUAL "address" OR IDEM_SANITIZE)
  set(IDEM_SANITIZER_FLAGS -fsanitize=address,undefined)
  set(idem_sanitizer_optimization -O0)
  target_compile_options(idem_build_flags INTERFACE -fno-sanitize-recover=undefined)
endif()
# GCC documents that sanitizer instrumentation makes its flow-based warnings report false
# positives: -Wmaybe-uninitialized (seen in libstdc++'s std::function inside std::regex) and
# -Warray-bounds (seen in std::string's operator+ at -O1 under TSan). The plain build keeps both.
if(IDEM_SANITIZER_FLAGS AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(idem_build_flags INTERFACE -Wno-maybe-uninitialized -Wno-array-bounds)
endif()

if(IDEM_SANITIZE_OPTIMIZATION)
  set(idem_sanitizer_optimization ${IDEM_SANITIZE_OPTIMIZATION})
endif()
if(IDEM_SANITIZER_FLAGS)
  target_compile_options(idem_build_flags INTERFACE ${IDEM_SANITIZER_FLAGS}
    -fno-omit-frame-pointer "$<$<CONFIG:RelWithDebInfo>:${idem_sanitizer_optimization};-g1>")
  target_link_options(idem_build_flags INTERFACE ${IDEM_SANITIZER_FLAGS})
endif()
# GCC 12 warns that TSan does not model std::atomic_thread_fence (Asio uses it); TSan still sees
# the atomics themselves.
if(idem_sanitize STREQUAL "thread" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(idem_build_flags INTERFACE -Wno-tsan)
endif()
list(JOIN IDEM_SANITIZER_FLAGS " " IDEM_SANITIZER_FLAGS)
