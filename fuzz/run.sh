#!/usr/bin/env bash
# Fuzzes every target of a build tree configured with -DIDEM_FUZZ=ON for a bounded time each,
# two at a time, starting from the seeds in fuzz/corpus/<name>/ (never written to: new inputs go
# to BUILD_DIR/fuzz-corpus/<name>/). A crash, leak, timeout or failed property stops with the
# input kept in BUILD_DIR/fuzz-artifacts/<name>/ and the fuzzer's report on stderr; copy the input
# into fuzz/corpus/<name>/ so that CTest replays it from then on (docs/CI.md).
#   bash fuzz/run.sh build-asan                     # every target, FUZZ_SECONDS (30) each
#   FUZZ_SECONDS=300 bash fuzz/run.sh build-asan server_http
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:?usage: fuzz/run.sh BUILD_DIR [TARGET...]}
shift
seconds=${FUZZ_SECONDS:-30}
jobs=${IDEM_JOBS:-2}

# Readable reports: Debian's clang 16 brings no symbolizer of its own; clang 14's reads its output.
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && command -v llvm-symbolizer >/dev/null; then
  export ASAN_SYMBOLIZER_PATH
  ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer)
fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for program in "$build_dir"/fuzz/fuzz_*; do
    [ -x "$program" ] && names+=("${program##*/fuzz_}")
  done
fi
[ ${#names[@]} -gt 0 ] || { echo "fuzz: no fuzz_* programs in $build_dir/fuzz (IDEM_FUZZ=ON?)" >&2; exit 1; }

fuzz_one() {
  local build_dir=$1 seconds=$2 name=$3
  local corpus="$build_dir/fuzz-corpus/$name" artifacts="$build_dir/fuzz-artifacts/$name/"
  local log="$build_dir/fuzz-logs/$name.log"
  mkdir -p "$corpus" "$artifacts" "${log%/*}"
  # -timeout: one input taking this long is a hang; -rss_limit_mb: the machine has 24 GiB for 2.
  if "$build_dir/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
    -max_len=16384 -print_final_stats=1 -artifact_prefix="$artifacts" \
    "$corpus" "fuzz/corpus/$name" >"$log" 2>&1; then
    echo "fuzz: $name ok: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" |
      grep -o '[0-9]*$') inputs in ${seconds}s, $(find "$corpus" -type f | wc -l) in its corpus"
  else
    echo "fuzz: $name FAILED; the input is in $artifacts; the report:" >&2
    grep -v '^#' "$log" | tail -60 >&2
    echo "$name" >>"$build_dir/fuzz-logs/failed"
    return 1
  fi
}
export -f fuzz_one

rm -f "$build_dir/fuzz-logs/failed"
printf '%s\n' "${names[@]}" | xargs -P "$jobs" -I{} bash -c 'fuzz_one "$@"' _ "$build_dir" \
  "$seconds" {} || true
failed=0
[ -f "$build_dir/fuzz-logs/failed" ] && failed=$(wc -l <"$build_dir/fuzz-logs/failed")
echo "fuzz: $((${#names[@]} - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
