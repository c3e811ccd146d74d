#!/usr/bin/env bash
# The performance harness of issue 9, in one command: installs what is missing (setup.sh),
# builds idem-cli, idem-mock-server and bench/perf in Release in build-perf/, measures idem
# against raw libcurl and the mock server against SQLite, and writes docs/PERFORMANCE.md.
#
#   bash scripts/perf.sh
#   PERF_BEFORE=<git rev> bash scripts/perf.sh   # also measure <rev> (built in build-perf-before/)
#   PERF_QUICK=1 bash scripts/perf.sh            # one short run per point: try the harness out
#
# PERF_OUT (default docs/PERFORMANCE.md) is where the report goes; IDEM_JOBS (default 2) the
# build's parallelism. Nothing else should run on the machine meanwhile: the figures are ratios
# measured side by side, but two cores shared with a compiler are not the same two cores.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

jobs="${IDEM_JOBS:-2}"
release=(-DCMAKE_BUILD_TYPE=Release -DIDEM_BUILD_TESTS=OFF -DIDEM_BUILD_EXAMPLES=OFF)

echo "perf: building build-perf/ (Release)" >&2
cmake -S . -B build-perf "${release[@]}" -DIDEM_BUILD_BENCH=ON >/dev/null
cmake --build build-perf -j "$jobs" --target idem-cli idem-mock-server idem_perf

before=()
if [ -n "${PERF_BEFORE:-}" ]; then
  rev="$(git rev-parse --verify "${PERF_BEFORE}^{commit}")"
  label="$(git describe --always "$rev")"
  echo "perf: building $label in build-perf-before/ (Release)" >&2
  # The revision's own tree (git archive: no checkout, the working tree stays as it is).
  rm -rf build-perf-before/src
  mkdir -p build-perf-before/src
  git archive "$rev" | tar -x -C build-perf-before/src
  # Its benchmarks are not needed (and an older tree builds them only with its tests).
  cmake -S build-perf-before/src -B build-perf-before/build "${release[@]}" \
    -DIDEM_BUILD_BENCH=OFF >/dev/null
  cmake --build build-perf-before/build -j "$jobs" --target idem-cli idem-mock-server
  before=(--before-idem-cli build-perf-before/build/tools/idem-cli
    --before-mock-server build-perf-before/build/mock_server/idem-mock-server
    --before-label "$label ($rev)")
fi

quick=()
if [ -n "${PERF_QUICK:-}" ]; then quick=(--quick); fi

out="${PERF_OUT:-docs/PERFORMANCE.md}"
commit="$(git describe --always --dirty 2>/dev/null || echo unknown)"
build-perf/bench/perf/idem_perf \
  --idem-cli build-perf/tools/idem-cli \
  --mock-server build-perf/mock_server/idem-mock-server \
  --work-dir build-perf/perf-work \
  --commit "$commit" \
  --out "$out" \
  "${quick[@]}" "${before[@]}"
