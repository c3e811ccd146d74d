#!/usr/bin/env bash
# The main job: builds the four programs it runs, starts the mock server with a heavy, seeded
# fault mix (scripts/demo-load-faults.json: about half of all writes hit a fault, most of them
# ambiguous to the client -- the response lost or a 502/504 after the commit, a reset, a provider
# timeout -- the rest 503s before processing, delays and stalls), runs
# `idem-cli load --orders 300 --pay` against it with a 30 s deadline per intent, and prints the
# client's outcomes beside the server's own counts. The claim checked: every intent succeeded and
# the server holds each exactly once (N orders, N charges, no order charged twice, one key per
# business ID). Then, as a second part, the step-by-step walkthrough of one order.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build_dir=${BUILD_DIR:-build}
# Only what the demo runs; the rest (tests, benchmarks) is built by bash scripts/test.sh.
demo_targets="idem-mock-server idem-cli demo_report mock_walkthrough"
echo "demo: building $demo_targets in $build_dir (the first run takes several minutes)" >&2
IDEM_TARGETS=$demo_targets bash scripts/build.sh "$build_dir" >/dev/null

orders=${DEMO_ORDERS:-300}
work=$(mktemp -d)
server_pid=""
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
}
cleanup() {
  stop_server
  rm -rf "$work"
}
trap cleanup EXIT

admin_token="demo-admin-$$"
url=""
# Starts the mock server with the fault rules in $1 on a fresh database; sets $url.
start_server() {
  rm -f "$work/out"
  mkfifo "$work/out"
  # The admin token by environment: a command line is readable by every local user.
  IDEM_MOCK_ADMIN_TOKEN="$admin_token" "$build_dir/mock_server/idem-mock-server" \
    --listen 127.0.0.1:0 --db "$work/$2.db" --faults "$1" >"$work/out" 2>"$work/$2-server.log" &
  server_pid=$!
  exec 3<"$work/out"
  # EOF here means the server exited before it listened: say why instead of ending silently
  # (the EXIT trap deletes the log).
  if ! read -r first_line <&3 || [ "${first_line#listening on }" = "$first_line" ]; then
    echo "demo: mock server did not start:" >&2
    cat "$work/$2-server.log" >&2
    exit 1
  fi
  url=${first_line#listening on }
}

echo "== 1. load: $orders orders, each paid, 16 at a time, 30 s deadline per intent"
start_server scripts/demo-load-faults.json load
echo "mock server: $url (faults: scripts/demo-load-faults.json, seeded)"
status=0
"$build_dir/tools/idem-cli" load --url "$url" --token demo-shop --orders "$orders" --pay \
  --concurrency 16 --deadline 30s >"$work/load.json" || status=$?
echo "idem-cli load: exit status $status"
if ! curl -fsS "$url/_mock/stats" -H "Authorization: Bearer $admin_token" >"$work/stats.json"; then
  echo "demo: could not read the mock server's /_mock/stats (did it die during the load?):" >&2
  cat "$work/load-server.log" >&2
  exit 1
fi
stop_server
report=0
"$build_dir/tools/demo_report" "$orders" 1 "$work/load.json" "$work/stats.json" || report=$?

echo
echo "== 2. one order, step by step (scripts/demo-faults.json)"
start_server scripts/demo-faults.json walkthrough
"$build_dir/examples/mock_walkthrough" "$url" "$admin_token"
stop_server
exit "$report"
