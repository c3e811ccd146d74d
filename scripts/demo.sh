#!/usr/bin/env bash
# The main job: builds everything, starts the mock server on a free loopback port with fault
# rules switched on, walks through "create, lose the response, retry, replayed" and prints what
# the server saw.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build_dir=${BUILD_DIR:-build}
bash scripts/build.sh "$build_dir" >/dev/null

work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

admin_token="demo-admin-$$"
mkfifo "$work/out"
"$build_dir/mock_server/idem-mock-server" --listen 127.0.0.1:0 --db "$work/demo.db" \
  --admin-token "$admin_token" --faults scripts/demo-faults.json >"$work/out" 2>"$work/server.log" &
server_pid=$!
exec 3<"$work/out"
read -r first_line <&3
url=${first_line#listening on }
echo "mock server: $first_line (faults: scripts/demo-faults.json)"
echo
"$build_dir/examples/mock_walkthrough" "$url" "$admin_token"
