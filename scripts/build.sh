#!/usr/bin/env bash
# Configures and builds one build tree. Usage: scripts/build.sh BUILD_DIR [cmake args...]
# Under CI (CI=true) warnings are errors, and RelWithDebInfo keeps line tables only (-g1, about a
# third less compile time than full debug info; stacks still show file:line). IDEM_TARGETS
# (space-separated, e.g. "idem-cli idem-mock-server") builds only those targets; unset,
# everything is built. The project's libraries compile in unity batches (IDEM_UNITY_BUILD,
# cmake/unity.cmake: all six in 333 CPU-s cold, where two took 445 file by file); pass
# -DIDEM_UNITY_BUILD=OFF to compile them file by file.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=$1
shift
werror=OFF
ci=()
if [ "${CI:-}" = "true" ]; then
  werror=ON
  ci=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG")
fi
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIDEM_WERROR="$werror" -DIDEM_UNITY_BUILD=ON \
  "${ci[@]}" "$@" >/dev/null
targets=()
if [ -n "${IDEM_TARGETS:-}" ]; then
  read -r -a names <<<"$IDEM_TARGETS"
  targets=(--target "${names[@]}")
fi
cmake --build "$build_dir" -j "${IDEM_JOBS:-2}" "${targets[@]}"
