#!/usr/bin/env bash
# Instructions per request of idem-cli load, of raw libcurl (bench/perf/raw_curl_load.cpp, as
# the baseline and --tuned: driven as idem's transport drives curl), of idem's transport
# alone (bench/perf/transport_load.cpp) and of an intent layer's floor (bench/perf/floor_load.cpp),
# counted by callgrind (valgrind), against the minimal server (bench/perf/minimal_server.cpp):
# a count that does not move with the machine's load, where CPU time on a shared 2-core VM
# does. It counts user-space instructions only (the client's, libcurl's, libc's), not the
# kernel's. docs/PERFORMANCE.md, "What changed", lists each change's count.
#
#   bash scripts/perf_instructions.sh [ORDERS] [IN_FLIGHT] [IDEM_CLI...]
#
# Defaults: 5,000 orders, 16 in flight, build-perf/tools/idem-cli (built with scripts/perf.sh's
# Release settings if missing). Give several idem-cli binaries to compare builds in one run:
# the count depends a little on how requests batch (a few thousand instructions per request
# between runs), so compare builds measured together.
set -euo pipefail
cd "$(dirname "$0")/.."

orders="${1:-5000}"
in_flight="${2:-16}"
shift $(($# > 2 ? 2 : $#))
clis=("$@")

if ! command -v valgrind >/dev/null; then
  echo "perf_instructions: installing valgrind" >&2
  apt-get install -y -q valgrind >/dev/null
fi
if [ ! -x build-perf/bench/perf/idem_floor_load ] || [ ${#clis[@]} -eq 0 ]; then
  bash scripts/setup.sh
  cmake -S . -B build-perf -DCMAKE_BUILD_TYPE=Release -DIDEM_BUILD_TESTS=OFF \
    -DIDEM_BUILD_EXAMPLES=OFF -DIDEM_BUILD_BENCH=ON >/dev/null
  cmake --build build-perf -j "${IDEM_JOBS:-2}" --target idem-cli idem_perf >&2
fi
[ ${#clis[@]} -eq 0 ] && clis=(build-perf/tools/idem-cli)

work="$(mktemp -d)"
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
build-perf/bench/perf/idem_minimal_server >"$work/port" &
server_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
url="http://127.0.0.1:$(head -1 "$work/port")"

# Prints the total instructions of one run of "$@" divided by the requests.
per_request() {
  valgrind --tool=callgrind --callgrind-out-file="$work/out" "$@" >/dev/null 2>"$work/err" ||
    { cat "$work/err" >&2; return 1; }
  awk -v n="$orders" '/^(summary|totals):/ { printf "%d\n", $2 / n; exit }' "$work/out"
}

echo "requests: $orders at $in_flight in flight, against idem_minimal_server"
printf '%-40s %s\n' "raw libcurl" \
  "$(per_request build-perf/bench/perf/idem_raw_curl_load --url "$url" --token t \
    --requests "$orders" --concurrency "$in_flight") instructions/request"
printf '%-40s %s\n' "raw libcurl, tuned as idem drives it" \
  "$(per_request build-perf/bench/perf/idem_raw_curl_load --url "$url" --token t \
    --requests "$orders" --concurrency "$in_flight" --tuned 1) instructions/request"
printf '%-40s %s\n' "idem's transport alone" \
  "$(per_request build-perf/bench/perf/idem_transport_load --url "$url" --token t \
    --requests "$orders" --concurrency "$in_flight") instructions/request"
printf '%-40s %s\n' "an intent layer's floor" \
  "$(per_request build-perf/bench/perf/idem_floor_load --url "$url" --token t \
    --requests "$orders" --concurrency "$in_flight") instructions/request"
for cli in "${clis[@]}"; do
  printf '%-40s %s\n' "$cli" \
    "$(per_request "$cli" load --url "$url" --token t --orders "$orders" \
      --concurrency "$in_flight") instructions/request"
done
