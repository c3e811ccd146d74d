#!/usr/bin/env bash
# Configures and builds one build tree. Usage: scripts/build.sh BUILD_DIR [cmake args...]
# Under CI (CI=true) warnings are errors. IDEM_TARGETS (space-separated, e.g.
# "idem-cli idem-mock-server") builds only those targets; unset, everything is built.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=$1
shift
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIDEM_WERROR="$werror" "$@" >/dev/null
targets=()
if [ -n "${IDEM_TARGETS:-}" ]; then
  read -r -a names <<<"$IDEM_TARGETS"
  targets=(--target "${names[@]}")
fi
cmake --build "$build_dir" -j "${IDEM_JOBS:-2}" "${targets[@]}"
