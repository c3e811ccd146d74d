#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test with CTest.
#   bash scripts/test.sh            # build/ (RelWithDebInfo)
#   BUILD_DIR=build-asan bash scripts/test.sh -DCMAKE_CXX_COMPILER=clang++-16 -DIDEM_SANITIZE=ON
#   BUILD_DIR=build-tsan bash scripts/test.sh -DIDEM_SANITIZE=thread   # the `threads` tests
# (docs/CI.md describes the configurations .ci/run builds.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build_dir=${BUILD_DIR:-build}
bash scripts/build.sh "$build_dir" "$@"
run=()
ctest_args=()
# Readable sanitizer reports: Debian's clang 16 brings no symbolizer of its own; clang 14's
# llvm-symbolizer reads its output (without it a report is bare addresses).
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && command -v llvm-symbolizer >/dev/null; then
  export ASAN_SYMBOLIZER_PATH
  ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer)
fi
# TSan reads no such variable, and clang 16's runtime looks for /usr/bin/llvm-symbolizer-16, which
# no Debian 12 package installs: it is given the same one in TSAN_OPTIONS (first, so that an
# external_symbolizer_path of the caller's wins). Its suppressions for libc++
# (tests/tsan_libcxx_suppressions.cpp) match function names, so they need it too.
if [ -n "${ASAN_SYMBOLIZER_PATH:-}" ]; then
  export TSAN_OPTIONS="external_symbolizer_path=$ASAN_SYMBOLIZER_PATH${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
fi
# The TSan build runs the tests labelled `threads` and the SDK's and its test kit's own (`sdk`),
# the only test programs it builds (tests/CMakeLists.txt).
# ThreadSanitizer maps its shadow memory at fixed addresses, which a kernel with many bits of
# mmap randomisation (vm.mmap_rnd_bits > 28) can collide with ("unexpected memory mapping"):
# the TSan build's tests run with address randomisation off for CTest and everything it starts,
# where the kernel lets a process ask for that (setarch -R; no root needed).
if grep -qix 'IDEM_SANITIZE:[A-Z]*=thread' "$build_dir/CMakeCache.txt"; then
  ctest_args=(-L '^(threads|sdk)$')
  if setarch "$(uname -m)" -R true 2>/dev/null; then
    run=(setarch "$(uname -m)" -R)
  fi
fi
"${run[@]}" ctest --test-dir "$build_dir" --output-on-failure -j "${IDEM_JOBS:-2}" "${ctest_args[@]}"
