#!/usr/bin/env bash
# What idem costs a mobile app at rest, in one command (issue "Mobile-ready"): builds what it
# needs in BUILD_DIR (Release with -O2; libidem.a again with other flags in trees of their own
# under BUILD_DIR, for the size table only), measures, and prints a Markdown report, also
# written to BUILD_DIR/footprint.md:
#
#   1. size: the examples stripped; idem's share of example_callback, as the difference to a
#      baseline app doing the same job on libcurl and as the bytes the linker kept from
#      libidem.a (lld link map); the members of libidem.a that weigh most
#   2. memory of an idle client (memory store; SQLite journal), step by step
#   3. wake-ups of an idle client: context switches per thread, Asio handlers and the state of
#      Asio's timerfd over an idle window; the syscalls (strace) of a second window; a window in
#      which the server closes the pooled connection
#   4. start-up: sqlite_journal::open on a journal of 10,000 final and 100 open intents
#
#   bash scripts/footprint.sh [BUILD_DIR]          (default: build-footprint)
#
# FOOTPRINT_VARIANTS   extra builds of libidem.a for the size table (default "sections os"):
#                      sections = -O2 -ffunction-sections -fdata-sections, os = -Os and the same,
#                      os-only = -Os alone; "" for the -O2 tree alone (one library build)
# FOOTPRINT_IDLE_SECONDS  length of each idle window (default 30)
# FOOTPRINT_CLOSE_SECONDS length of the window in which the server goes away (default 5)
# FOOTPRINT_OPEN_REPEAT   opens per journal start-up figure (default 7)
# IDEM_JOBS               build parallelism (default 2)
#
# Needs the project's dependencies (scripts/setup.sh installs them), binutils' strip and lld
# (the project's default linker: the link map is read in lld's format). strace is optional:
# without it (or without the right to attach) the syscall evidence is left out.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
build="$(realpath -m "${1:-build-footprint}")"
jobs="${IDEM_JOBS:-2}"
variants="${FOOTPRINT_VARIANTS-sections os}"
idle_seconds="${FOOTPRINT_IDLE_SECONDS:-30}"
close_seconds="${FOOTPRINT_CLOSE_SECONDS:-5}"
settle_seconds=1
open_repeat="${FOOTPRINT_OPEN_REPEAT:-7}"
work="$build/footprint-work"
report="$build/footprint.md"

say() { echo "footprint: $*" >&2; }

# --- building ---------------------------------------------------------------------------------

# configure DIR OPTIMISATION EXTRA_CXX_FLAGS
configure() {
  mkdir -p "$1"
  if ! nice -n 15 cmake -S "$root" -B "$1" -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_CXX_FLAGS_RELEASE=$2 -DNDEBUG" "-DCMAKE_CXX_FLAGS=$3" \
    -DIDEM_BUILD_TESTS=OFF -DIDEM_BUILD_EXAMPLES=ON -DIDEM_BUILD_BENCH=ON \
    >"$1/footprint-configure.log" 2>&1; then
    cat "$1/footprint-configure.log" >&2
    exit 1
  fi
}

# build DIR TARGET...
build_targets() {
  local dir="$1"
  shift
  say "building in $dir: $* (log: $dir/footprint-build.log)"
  if ! nice -n 15 cmake --build "$dir" -j "$jobs" --target "$@" >"$dir/footprint-build.log" 2>&1; then
    tail -n 60 "$dir/footprint-build.log" >&2
    exit 1
  fi
  if grep -q "warning:" "$dir/footprint-build.log"; then
    say "warnings in $dir/footprint-build.log: $(grep -c "warning:" "$dir/footprint-build.log")"
  fi
}

has_icf() { grep -q '^IDEM_FOOTPRINT_ICF:INTERNAL=1' "$1/CMakeCache.txt"; }

# The size programs of a tree: DIR [plain] (plain: also those linked without --gc-sections).
size_targets() {
  local t=(idem_footprint_example_gc idem_footprint_baseline_app_gc)
  if [ "${2:-}" = plain ]; then t+=(idem_footprint_example idem_footprint_baseline_app); fi
  if has_icf "$1"; then t+=(idem_footprint_example_icf idem_footprint_baseline_app_icf); fi
  echo "${t[@]}"
}

configure "$build" -O2 ""
examples=(example_callback example_future example_coroutine example_blocking)
read -ra linked <<<"$(size_targets "$build")"
build_targets "$build" "${examples[@]}" idem_footprint_example idem_footprint_baseline_app \
  idem_footprint_floor_app idem_footprint_journal_app idem_footprint_idle idem_footprint_journal \
  idem_minimal_server \
  "${linked[@]}"
declare -A variant_dir=([sections]="$build/variant-sections" [os]="$build/variant-os"
  [os-only]="$build/variant-os-only")
declare -A variant_opt=([sections]=-O2 [os]=-Os [os-only]=-Os)
declare -A variant_flags=([sections]="-ffunction-sections -fdata-sections"
  [os]="-ffunction-sections -fdata-sections" [os-only]="")
for v in $variants; do
  [ -n "${variant_dir[$v]:-}" ] || { say "unknown variant $v (sections, os, os-only)"; exit 2; }
  configure "${variant_dir[$v]}" "${variant_opt[$v]}" "${variant_flags[$v]}"
  plain=""
  if [ "$v" = os-only ]; then plain=plain; fi
  read -ra linked <<<"$(size_targets "${variant_dir[$v]}" $plain)"
  build_targets "${variant_dir[$v]}" "${linked[@]}"
done

rm -rf "$work"
mkdir -p "$work/stripped"
exec 3>"$report"
out() { printf '%s\n' "$*" >&3; }

kib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1024 }'; }

# --- the machine ------------------------------------------------------------------------------

cxx="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")"
linker="the compiler's default linker"
if grep -q '^IDEM_LINKER_LLD_WORKS:INTERNAL=1' "$build/CMakeCache.txt"; then
  linker="$(ld.lld --version 2>/dev/null | head -n 1)"
elif grep -q '^IDEM_LINKER_GOLD_WORKS:INTERNAL=1' "$build/CMakeCache.txt"; then
  linker="gold ($(ld.gold --version 2>/dev/null | head -n 1))"
fi
boost="$(sed -n 's/^Boost_DIR:[A-Z]*=.*Boost-\([0-9.]*\).*/\1/p' "$build/CMakeCache.txt")"
curl_version="$(curl-config --version 2>/dev/null || echo unknown)"
cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"

out "# idem footprint"
out ""
out "Generated by \`bash scripts/footprint.sh\` (bench/footprint/)."
out ""
out "| machine | |"
out "|---|---|"
out "| uname -m | $(uname -m) (Linux $(uname -r)) |"
out "| CPU | ${cpu:-unknown}, $(nproc) cores |"
out "| compiler | $("$cxx" --version | head -n 1) |"
out "| linker | $linker |"
out "| build | CMake Release with -O2 -DNDEBUG (CMake's Release default is -O3); stripped with \`strip\` (binutils $(strip --version | head -n 1 | awk '{print $NF}')) |"
out "| libraries | Boost ${boost:-?} (headers), $curl_version, OpenSSL, SQLite, glibc $(ldd --version | head -n 1 | awk '{print $NF}'): all linked dynamically, not counted in the sizes |"
out ""

# --- 1. size ----------------------------------------------------------------------------------

say "measuring sizes"
stripped() { # FILE NAME -> bytes
  strip -o "$work/stripped/$2" "$1"
  stat -c %s "$work/stripped/$2"
}

out "## 1. Binary size"
out ""
out "Each program stripped (\`strip\`, all symbols), as a file on disk; dynamically linked."
out ""
out "| program | what it is | stripped bytes | KiB |"
out "|---|---|---|---|"
total=0
for e in "${examples[@]}"; do
  b=$(stripped "$build/examples/$e" "$e")
  total=$((total + b))
  out "| examples/$e | submits one order | $b | $(kib "$b") |"
done
out "| all four examples | | $total | $(kib "$total") |"
b=$(stripped "$build/bench/footprint/idem_footprint_baseline_app" baseline_app)
out "| baseline app | example_callback's job without idem: io_context + one libcurl easy POST + iostream | $b | $(kib "$b") |"
b=$(stripped "$build/bench/footprint/idem_footprint_floor_app" floor_app)
out "| floor app | one line on iostream | $b | $(kib "$b") |"
out ""

# One row of the share table: LABEL DIR SUFFIX TAG (SUFFIX: "", _gc or _icf; TAG names its files)
declare -a share_rows=()
maps=()
share_row() {
  local label="$1" dir="$2" suffix="$3" tag="$4"
  local fp="$dir/bench/footprint"
  [ -f "$fp/idem_footprint_example$suffix" ] || return 0
  local app base map
  app=$(stripped "$fp/idem_footprint_example$suffix" "example$tag")
  base=$(stripped "$fp/idem_footprint_baseline_app$suffix" "baseline$tag")
  map="$work/map$tag.tsv"
  awk -v archive=libidem.a -v app=example_callback.cpp.o -f bench/footprint/link_map.awk \
    "$fp/idem_footprint_example$suffix.map" >"$map"
  maps+=("$tag")
  local g_idem g_app g_linker eh
  g_idem=$(awk -F'\t' '$1 == "group" && $2 == "idem" { print $3 }' "$map")
  g_app=$(awk -F'\t' '$1 == "group" && $2 == "app" { print $3 }' "$map")
  g_linker=$(awk -F'\t' '$1 == "group" && $2 == "linker" { print $3 }' "$map")
  eh=$(awk -F'\t' '$1 == "section" && $2 == ".eh_frame" { print $3 }' "$map")
  share_rows+=("| $label | $(kib "$app") | $(kib "$base") | **$(kib $((app - base)))** | **$(kib "${g_idem:-0}")** | $(kib "${eh:-0}") | $(kib "${g_app:-0}") | $(kib "${g_linker:-0}") |")
  echo "$label" >"$work/label$tag"
}
share_row "-O2 (as the examples are built)" "$build" "" o2
share_row "-O2, linked with --gc-sections" "$build" "_gc" o2_gc
share_row "-O2, --gc-sections --icf=all" "$build" "_icf" o2_icf
for v in $variants; do
  d="${variant_dir[$v]}"
  case "$v" in
    sections)
      share_row "-O2 -ffunction-sections -fdata-sections, --gc-sections" "$d" _gc sec_gc
      share_row "-O2 -ffunction-sections -fdata-sections, --gc-sections --icf=all" "$d" _icf sec_icf
      ;;
    os)
      share_row "-Os -ffunction-sections -fdata-sections, --gc-sections" "$d" _gc os_gc
      share_row "-Os -ffunction-sections -fdata-sections, --gc-sections --icf=all" "$d" _icf os_icf
      ;;
    os-only)
      share_row "-Os" "$d" "" os_only
      share_row "-Os, linked with --gc-sections" "$d" _gc os_only_gc
      share_row "-Os, --gc-sections --icf=all" "$d" _icf os_only_icf
      ;;
  esac
done

o2_app=$(stat -c %s "$work/stripped/exampleo2")
cb=$(stat -c %s "$work/stripped/example_callback")
out "### idem's share of example_callback"
out ""
out "Two ways, in KiB of the stripped file (target: idem's share under 400 KiB):"
out ""
out "- **difference**: example_callback minus the baseline app, both linked the same way. What an"
out "  app that already posts its orders with libcurl on an io_context grows by when it uses idem"
out "  instead: idem's code, the Asio/JSON/std templates it instantiates, the dynamic symbols"
out "  and relocations they bring."
out "- **kept from libidem.a**: the bytes of the input sections the linker kept from members of"
out "  libidem.a (lld's link map, \`-Wl,-Map\`; after --gc-sections/--icf where given), .eh_frame"
out "  included. Templates instantiated both in the app's own object and in libidem.a are kept"
out "  from the app's (it comes first on the link line), so this undercounts idem slightly; the"
out "  app object's bytes are shown beside it. **linker-made**: dynamic symbol and string tables,"
out "  relocations, GOT/PLT, merged string literals (which the map does not attribute)."
out ""
out "The example is examples/example_callback.cpp compiled and linked as examples/CMakeLists.txt"
out "does it, plus a link map (bench/footprint/CMakeLists.txt): its stripped size,"
out "$o2_app bytes, is the example's own ($cb bytes) when the two agree."
out ""
if ! grep -q '^IDEM_LINKER_LLD_WORKS:INTERNAL=1' "$build/CMakeCache.txt"; then
  out "**The project does not link with lld here: the link-map columns below are not valid.**"
  out ""
fi
out "| build | example_callback | baseline app | difference | kept from libidem.a | of which .eh_frame | example_callback.cpp.o | linker-made |"
out "|---|---|---|---|---|---|---|---|"
for r in "${share_rows[@]}"; do out "$r"; done
out ""

# The same app with the journal as its store.
ja=$(stripped "$build/bench/footprint/idem_footprint_journal_app" journal_app)
awk -v archive=libidem.a -v app=journal_app.cpp.o -f bench/footprint/link_map.awk \
  "$build/bench/footprint/idem_footprint_journal_app.map" >"$work/map-journal.tsv"
ja_idem=$(awk -F'\t' '$1 == "group" && $2 == "idem" { print $3 }' "$work/map-journal.tsv")
o2_idem=$(awk -F'\t' '$1 == "group" && $2 == "idem" { print $3 }' "$work/mapo2.tsv")
journal_members=$(awk -F'\t' 'NR == FNR { if ($1 == "member") had[$2] = 1; next }
    $1 == "member" && !($2 in had) { print $3 "\t" $2 }' "$work/mapo2.tsv" "$work/map-journal.tsv" |
  sort -rn | awk -F'\t' '{ printf "%s%s %.1f", sep, $2, $1 / 1024; sep = ", " }')
out "With a SQLite journal as its store (bench/footprint/journal_app.cpp: example_callback plus"
out "\`sqlite_journal::open\`; libsqlite3 itself is a shared library, not counted), the -O2 app is"
out "**$(kib "$ja") KiB** stripped, $(kib $((ja - o2_app))) KiB more than example_callback; kept from"
out "libidem.a: $(kib "${ja_idem:-0}") KiB ($(kib $((${ja_idem:-0} - ${o2_idem:-0}))) KiB more). The members only the"
out "journal brings, KiB: $journal_members."
out ""

# Top members: by kept bytes in the -O2 link, with the other builds beside.
out "### Where idem's bytes are: the members of libidem.a"
out ""
out "Bytes kept per object file of libidem.a (KiB), the 10 heaviest in the -O2 link, with the"
out "same member in the other builds:"
out ""
header="| member |"
rule="|---|"
for t in "${maps[@]}"; do
  header="$header $(cat "$work/label$t") |"
  rule="$rule---|"
done
out "$header"
out "$rule"
awk -F'\t' '$1 == "member" { print $3 "\t" $2 }' "$work/mapo2.tsv" | sort -rn | head -n 10 |
  while IFS=$'\t' read -r _ member; do
    row="| $member |"
    for t in "${maps[@]}"; do
      v=$(awk -F'\t' -v m="$member" '$1 == "member" && $2 == m { print $3 }' "$work/map$t.tsv")
      row="$row $(kib "${v:-0}") |"
    done
    out "$row"
  done
heavy="$(awk -F'\t' '$1 == "member" { print $3 "\t" $2 }' "$work/mapo2.tsv" | sort -rn |
  head -n 10 | cut -f2 | paste -sd,)"
others="| all others |"
all="| all of libidem.a |"
for t in "${maps[@]}"; do
  v=$(awk -F'\t' -v top="$heavy" '
      BEGIN { n = split(top, t, ","); for (i = 1; i <= n; i++) heavy[t[i]] = 1 }
      $1 == "member" && !($2 in heavy) { sum += $3 }
      END { print sum + 0 }' "$work/map$t.tsv")
  others="$others $(kib "$v") |"
  v=$(awk -F'\t' '$1 == "group" && $2 == "idem" { print $3 }' "$work/map$t.tsv")
  all="$all **$(kib "${v:-0}")** |"
done
out "$others"
out "$all"
out ""
out "By output section and by namespace (the -O2 link; namespaces from the symbols the map names"
out "in idem's sections: the first of idem::, nlohmann::, boost::asio::, boost::, std:: in the"
out "demangled name, so \`void boost::asio::detail::...<idem::...>\` counts as Asio):"
out ""
out "| output section | KiB | | namespace | KiB |"
out "|---|---|---|---|---|"
paste -d'\t' \
  <(awk -F'\t' '$1 == "section" && $3 > 0 { print $3 "\t" $2 }' "$work/mapo2.tsv" | sort -rn) \
  <(awk -F'\t' '$1 == "namespace" { print $3 "\t" $2 }' "$work/mapo2.tsv" | sort -rn) |
  while IFS=$'\t' read -r sb sn nb nn; do
    out "| ${sn:-} | $([ -n "$sb" ] && kib "$sb") | | ${nn:-} | $([ -n "$nb" ] && kib "$nb") |"
  done
out ""

# --- 2 and 3. an idle client ------------------------------------------------------------------

server_pid=""
idle_pid=""
cleanup() {
  if [ -n "$idle_pid" ]; then kill "$idle_pid" 2>/dev/null || true; fi
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT

# Starts idem_minimal_server (bench/perf) on a free port; sets $url and $server_pid.
start_server() {
  rm -f "$work/server.out"
  mkfifo "$work/server.out"
  "$build/bench/perf/idem_minimal_server" >"$work/server.out" 2>"$work/server.err" &
  server_pid=$!
  exec 5<"$work/server.out"
  local port
  if ! read -r port <&5; then
    say "idem_minimal_server did not start:"
    cat "$work/server.err" >&2
    exit 1
  fi
  exec 5<&-
  url="http://127.0.0.1:$port"
}

can_strace=0
if command -v strace >/dev/null; then can_strace=1; fi
traced="epoll_wait,epoll_pwait,epoll_pwait2,poll,ppoll,select,pselect6,nanosleep,clock_nanosleep,futex,timerfd_settime,read,recvfrom"

# Reads the idle program's lines from fd 6 into $1 until the start of window $2.
read_until_window() {
  local line
  while IFS= read -r line <&6; do
    printf '%s\n' "$line" >>"$1"
    case "$line" in "idle	"*"	$2") return 0 ;; esac
  done
  say "the idle client ended early:"
  cat "$1" "$work/idle-$store.err" >&2
  exit 1
}

# idle_run STORE: the idle client (memory store or journal) through its four windows.
idle_run() {
  store="$1"
  local lines="$work/idle-$store.tsv" args=()
  : >"$lines"
  if [ "$store" = journal ]; then args=(--journal "$work/idle.journal"); fi
  start_server
  rm -f "$work/idle.in" "$work/idle.out"
  mkfifo "$work/idle.in" "$work/idle.out"
  "$build/bench/footprint/idem_footprint_idle" "$url" "${args[@]}" <"$work/idle.in" \
    >"$work/idle.out" 2>"$work/idle-$store.err" &
  idle_pid=$!
  exec 4>"$work/idle.in" 6<"$work/idle.out"
  read_until_window "$lines" 1
  # Window 1 lets the event loop go back to sleep after the outcome; it is shown, not counted.
  sleep "$settle_seconds"
  echo next >&4
  read_until_window "$lines" 2
  say "$store store: idle window ($idle_seconds s, untraced)"
  sleep "$idle_seconds"
  echo next >&4
  read_until_window "$lines" 3
  if [ "$can_strace" = 1 ]; then
    say "$store store: idle window ($idle_seconds s, strace -f attached)"
    timeout -s INT "$idle_seconds" strace -f -p "$idle_pid" -tt -e trace="$traced" \
      -o "$work/strace-$store.log" 2>"$work/strace-$store.err" || true
  else
    sleep "$idle_seconds"
  fi
  echo next >&4
  read_until_window "$lines" 4
  say "$store store: the server goes away ($close_seconds s)"
  kill "$server_pid"
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
  sleep "$close_seconds"
  echo end >&4
  exec 4>&-
  cat <&6 >>"$lines"
  exec 6<&-
  local status=0
  wait "$idle_pid" || status=$?
  idle_pid=""
  if [ "$status" != 0 ]; then
    say "idem_footprint_idle ($store) exited $status:"
    cat "$lines" "$work/idle-$store.err" >&2
    exit 1
  fi
}

idle_run memory
idle_run journal

stage_value() { # FILE STAGE FIELD(3=rss 4=anon 5=file 6=hwm 7=heap)
  awk -F'\t' -v s="$2" -v f="$3" '$1 == "stage" && $2 == s { print $f }' "$1"
}

out "## 2. Memory of an idle client"
out ""
out "bench/footprint/idle_client.cpp: one process per store; an io_context run by a thread of its"
out "own (the app's event loop); \`idem::client\` with the default curl_transport; one order"
out "posted to idem_minimal_server (bench/perf) on loopback and answered 201; then idle."
out "VmRSS/RssAnon/RssFile from /proc/self/status; heap = bytes malloc has handed out over all"
out "arenas (malloc_info). curl_global_init (libcurl's and OpenSSL's set-up, which any libcurl app"
out "pays) is its own step, before the client; Δ is the change since the previous step."
out ""
out "| step | memory store: VmRSS KiB | Δ KiB | RssAnon KiB | RssFile KiB | heap KiB | journal: VmRSS KiB | Δ KiB | RssAnon KiB | RssFile KiB | heap KiB |"
out "|---|---|---|---|---|---|---|---|---|---|---|"
awk -F'\t' '$1 == "stage" { print $2 }' "$work/idle-journal.tsv" |
  while IFS= read -r s; do
    row="| $s |"
    for store in memory journal; do
      f="$work/idle-$store.tsv"
      rss=$(stage_value "$f" "$s" 3)
      if [ -z "$rss" ]; then
        row="$row  |  |  |  |  |"
        continue
      fi
      prev=$(awk -F'\t' -v s="$s" '$1 == "stage" { if ($2 == s) { print p; exit } p = $3 }' "$f")
      delta=""
      if [ -n "$prev" ]; then delta=$((rss - prev)); fi
      row="$row $rss | $delta | $(stage_value "$f" "$s" 4) | $(stage_value "$f" "$s" 5) | $(kib "$(stage_value "$f" "$s" 7)") |"
    done
    out "$row"
  done
out ""
for store in memory journal; do
  f="$work/idle-$store.tsv"
  client=$(($(stage_value "$f" "after one request" 3) - $(stage_value "$f" "io_context running" 3)))
  heap=$(($(stage_value "$f" "after one request" 7) - $(stage_value "$f" "io_context running" 7)))
  out "- $store store: the client, its store, transport and pooled connection after one request"
  out "  hold **$client KiB** of RSS (of which $(kib "$heap") KiB heap) over the running io_context."
done
perf_row="$(grep -m1 '^| minimal server | 5000 |' docs/PERFORMANCE.md 2>/dev/null || true)"
if [ -n "$perf_row" ]; then
  idem_b=$(echo "$perf_row" | awk -F'|' '{ gsub(/[ *]/, "", $7); print $7 }')
  extra_b=$(echo "$perf_row" | awk -F'|' '{ gsub(/[ *]/, "", $9); print $9 }')
  out "- Per intent in flight (not measured here): **$idem_b B** of peak RSS per intent at 5000 in"
  out "  flight, of which $extra_b B more than raw libcurl needs for the same request"
  out "  (docs/PERFORMANCE.md, \"Peak memory per request in flight\", \`bash scripts/perf.sh\`)."
fi
out ""

out "## 3. Wake-ups of an idle client"
out ""
out "After the request, nothing in flight (the connection pooled), four windows per store, in one"
out "process (bench/footprint/idle_client.cpp):"
out ""
out "1. **settle**, ${settle_seconds} s: the event loop goes back to sleep after the outcome."
out "2. **idle**, $idle_seconds s, untraced: context switches per thread from"
out "   /proc/self/task/*/status (a thread asleep the whole window adds none; each wake-up adds one"
out "   when it blocks again) and the handlers the event loop ran (\`io_context::run_one\`"
out "   counted; Asio counts a socket's readiness as one too). These are the figures."
out "3. **strace**, $idle_seconds s: \`strace -f -p\` attached for the window (which itself"
out "   switches every thread, so its context switches are not shown): the evidence."
out "4. **server gone**, $close_seconds s: the server process is killed as the window starts, which"
out "   closes the pooled connection from its side (as a server's keep-alive timeout would)."
out ""
out "**Asio's timerfd**: Boost.Asio's epoll reactor keeps every timer of the io_context on one"
out "timerfd; its time left (from /proc/self/fdinfo) at the start and end of each window says"
out "whether and when the event loop wakes next, beyond the window. The main thread blocks on"
out "stdin and wakes once at the end of each window: it is the measurement, left out of the"
out "totals."
out ""
out "| store | window | seconds | wake-ups (all threads but main) | per minute | Asio handlers run | per thread (voluntary/involuntary switches) | Asio's timerfd: start → end |"
out "|---|---|---|---|---|---|---|---|"
timerfd_at() { # FILE WINDOW start|end
  awk -F'\t' -v w="$2" -v e="$3" '$1 == "timerfd" && $2 == w && $3 == e {
      printf "%s%s", sep, ($5 == "disarmed" ? "disarmed" : sprintf("fires in %.1f s", $5)); sep = ", " }' "$1"
}
for store in memory journal; do
  f="$work/idle-$store.tsv"
  for w in 1 2 4; do
    case "$w" in 1) name="1: settle" ;; 2) name="2: idle" ;; *) name="4: server gone" ;; esac
    secs=$(awk -F'\t' -v w="$w" '$1 == "seconds" && $2 == w { printf "%.1f", $3 }' "$f")
    wakes=$(awk -F'\t' -v w="$w" '$1 == "thread" && $2 == w && $4 !~ /^main/ && $6 != "-" { s += $6 } END { print s + 0 }' "$f")
    per_min="–"
    if [ "$w" = 2 ]; then
      per_min=$(awk -v n="$wakes" -v s="$secs" 'BEGIN { printf "%.1f", (s > 0 ? n * 60 / s : 0) }')
    fi
    handlers=$(awk -F'\t' -v w="$w" '$1 == "handlers" && $2 == w { print $3 }' "$f")
    threads=$(awk -F'\t' -v w="$w" '$1 == "thread" && $2 == w && $4 !~ /^main/ { printf "%s%s: %s/%s", sep, $4, $6, $7; sep = "; " }' "$f")
    [ "$w" = 2 ] && wakes="**$wakes**"
    out "| $store | $name | $secs | $wakes | $per_min | $handlers | $threads | $(timerfd_at "$f" "$w" start) → $(timerfd_at "$f" "$w" end) |"
  done
done
out ""
armed=$(awk -F'\t' '$1 == "timerfd" && $2 == 2 && $3 == "end" && $5 != "disarmed" { printf "%.0f", $5; exit }' "$work/idle-memory.tsv")
idle_handlers=$(awk -F'\t' '$1 == "handlers" && $2 == 2 { print $3 }' "$work/idle-memory.tsv")
if [ -n "$armed" ] && [ "$idle_handlers" = 0 ]; then
  out "**Beyond the window**: no handler ran while idle, yet Asio's timerfd is armed (it fires in"
  out "$armed s). Boost.Asio's epoll reactor re-arms its timerfd for at most 5 minutes each time it"
  out "fires, even with no timer queued (boost/asio/detail/impl/epoll_reactor.ipp, \`get_timeout\`:"
  out "\"wait no longer than 5 minutes\" to notice clock changes), and cancelling a timer does not"
  out "disarm it. So the event loop wakes once at the expiry of the last timer cancelled before it"
  out "went idle (the settle row), then every 300 s without running anything: **0.2 wake-ups per"
  out "minute** at rest. \`FOOTPRINT_IDLE_SECONDS=330\` puts one inside window 2."
  out ""
fi
if [ "$can_strace" = 1 ]; then
  out "Window 3 under strace (tracing $traced): what each thread was blocked in"
  out "when strace attached, and every call that returned during the window (a blocking call that"
  out "returns is a wake-up; timerfd_settime arms or disarms Asio's timer)."
  out ""
  out "| store | thread | blocked in at attach | returned during the window |"
  out "|---|---|---|---|"
  for store in memory journal; do
    log="$work/strace-$store.log"
    if [ ! -s "$log" ]; then
      out "| $store | strace could not attach: $(head -n 1 "$work/strace-$store.err" 2>/dev/null) | | |"
      continue
    fi
    awk '
      function returned_call(tid, name) { n[tid, name]++; names[tid] = names[tid] " " name; seen[tid] = 1 }
      $3 == "<..." { returned_call($1, $4); next }
      / = / { name = $3; sub(/\(.*/, "", name); returned_call($1, name); next }
      /<unfinished|<detached/ && !($1 in first) {
        call = $0; sub(/^[0-9]+ +[0-9:.]+ +/, "", call); sub(/ *<(unfinished|detached) \.\.\.>.*/, "", call)
        gsub(/\|/, "\\|", call)
        first[$1] = call; seen[$1] = 1
      }
      END {
        for (t in seen) {
          list = ""; split(names[t], all, " "); delete done
          for (i in all) if (!(all[i] in done)) { done[all[i]] = 1; list = list (list == "" ? "" : ", ") all[i] " ×" n[t, all[i]] }
          print t "\t" first[t] "\t" (list == "" ? "nothing" : list)
        }
      }' "$log" | sort -n |
      while IFS=$'\t' read -r tid blocked returned; do
        role=$(awk -F'\t' -v t="$tid" '$1 == "thread" && $3 == t { print $4; exit }' "$work/idle-$store.tsv")
        out "| $store | ${role:-tid $tid} | \`${blocked:-?}\` | $returned |"
      done
  done
  out ""
fi

# --- 4. journal start-up ----------------------------------------------------------------------

say "journal start-up: writing 10,000 final and 100 open intents"
jfile="$work/startup.journal"
jcreate_start=$(date +%s.%N)
"$build/bench/footprint/idem_footprint_journal" create "$jfile" 10000 100 >"$work/journal-create.tsv"
jcreate_s=$(awk -v a="$jcreate_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
say "journal start-up: $open_repeat opens, cached and after dropping the file's cached pages"
"$build/bench/footprint/idem_footprint_journal" open "$jfile" "$open_repeat" >"$work/journal-open.tsv"
jt="$work/journal-open.tsv"
stats() { # FIGURE CACHE -> "median|min|max"
  awk -F'\t' -v k="$1" -v c="$2" '$1 == k && $2 == c {
      n = 0; for (i = 3; i <= NF; i++) v[++n] = $i
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
      med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
      printf "%.1f|%.1f|%.1f", med, v[1], v[n] }' "$jt"
}
first_cached=$(awk -F'\t' '$1 == "open_ms" && $2 == "cached" { printf "%.1f", $3 }' "$jt")
IFS='|' read -r c_med c_min c_max <<<"$(stats open_ms cached)"
IFS='|' read -r d_med d_min d_max <<<"$(stats open_ms dropped)"
IFS='|' read -r qc_med qc_min qc_max <<<"$(stats quick_check_ms cached)"
IFS='|' read -r qd_med qd_min qd_max <<<"$(stats quick_check_ms dropped)"
read -r sqlite_used _ <<<"$(awk -F'\t' '$1 == "sqlite_memory" { print $2, $3 }' "$jt")"
qc_cache=$(awk -F'\t' '$1 == "quick_check_cache_bytes" { print $2 }' "$jt")
read -r open_n intents succeeded unresolved file_bytes <<<"$(awk -F'\t' '$1 == "open_intents" { print $2, $4, $5, $6, $8 }' "$jt")"
purge_ms=$(awk -F'\t' '$1 == "purge_ms" { printf "%.1f", $2 }' "$jt")
before_rss=$(stage_value "$jt" "before open" 3)
after_rss=$(stage_value "$jt" "after the first open" 3)
after_hwm=$(stage_value "$jt" "after the first open" 6)
after_heap=$(stage_value "$jt" "after the first open" 7)
before_heap=$(stage_value "$jt" "before open" 7)

out "## 4. Journal start-up"
out ""
out "bench/footprint/journal_startup.cpp. A journal written through the store's interface (each"
out "intent's created, attempt_started, attempt_finished and outcome_reported events; the final"
out "ones succeeded with the order as body, the open ones unresolved after a timed-out attempt,"
out "spread through the file; written in ${jcreate_s} s, synchronous=NORMAL), then, in a fresh"
out "process, \`sqlite_journal::open\` timed $open_repeat times (each journal destroyed before the"
out "next open). **cached**: the file as the writing process left it in the page cache (warm)."
out "**dropped**: after \`posix_fadvise(DONTNEED)\` on the file and its WAL, so SQLite reads it from"
out "the disk again; SQLite's code, the file system's metadata and the disk's own cache stay warm,"
out "so this is not a cold start, which cannot be produced without root and a dropped system"
out "cache (an app's first open after a reboot costs more)."
out ""
out "| figure | value |"
out "|---|---|"
out "| journal | $intents intents ($succeeded succeeded, $unresolved unresolved, $open_n open read back by open), $(kib "$file_bytes") KiB |"
out "| open, page cache warm: median (min–max) | **$c_med ms** ($c_min–$c_max); first open of the process: $first_cached ms |"
out "| open, file's pages dropped: median (min–max) | **$d_med ms** ($d_min–$d_max) |"
out "| of which \`PRAGMA quick_check\` (open runs it first; timed alone on its own connection): warm, dropped | $qc_med ms ($qc_min–$qc_max), $qd_med ms ($qd_min–$qd_max) |"
out "| of which the purge of final intents past retention (none are; \`purge_final_before\` with open's cutoff, timed alone) | $purge_ms ms |"
out "| VmRSS before open → after the first open | $before_rss → $after_rss KiB (+$((after_rss - before_rss)) KiB; heap +$(kib $((after_heap - before_heap))) KiB) |"
out "| peak RSS (VmHWM) after the first open | **$after_hwm KiB** |"
out "| SQLite's own heap after the first open (\`sqlite3_status64(SQLITE_STATUS_MEMORY_USED)\`: page caches of the journal's two connections, schema, statements) | $(kib "$sqlite_used") KiB |"
out "| page cache \`PRAGMA quick_check\` alone leaves in its connection (\`SQLITE_DBSTATUS_CACHE_USED\`) | $(kib "${qc_cache:-0}") KiB |"
out ""

exec 3>&-
cat "$report"
say "written to $report"
