#!/usr/bin/env bash
# The SDK compiled for Windows, from a fresh Debian 12 x86-64 machine: installs what is missing
# (Debian's mingw-w64 cross compiler, and the headers of libcurl, OpenSSL, SQLite, Boost and
# nlohmann/json that scripts/setup.sh installs too), then compiles every source file of the SDK
# library (src/, the target `idem`) for x86_64-w64-mingw32, C++20, into build-windows/src/libidem.a
# (cmake/windows/CMakeLists.txt, cmake/toolchains/x86_64-w64-mingw32.cmake), and every public
# header alone. Object files, not a program: libcurl, OpenSSL and SQLite have no mingw build in
# Debian 12, so the SDK is compiled against their headers and nothing is linked or run
# (docs/PLATFORMS.md says what that proves). Exits non-zero on any failure; prints how long it
# took. Needs root (or sudo) only when it installs.
#   bash scripts/windows.sh
#   BUILD_DIR=build-win-file-by-file bash scripts/windows.sh -DIDEM_UNITY_BUILD=OFF
# (arguments go to cmake after the script's own). IDEM_JOBS (default 2): the build's
# parallelism. Under CI=true warnings are errors, as in the other builds (docs/CI.md).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build-windows}
jobs=${IDEM_JOBS:-2}

# --- what is missing ------------------------------------------------------------------------------
packages=(
  cmake make
  g++-mingw-w64-x86-64-posix
  # Only their headers are used (cmake/windows/CMakeLists.txt stages them).
  libboost1.81-dev nlohmann-json3-dev libcurl4-openssl-dev libssl-dev libsqlite3-dev
)
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
as_root() {
  if [ -n "$sudo" ] && ! command -v sudo >/dev/null; then
    echo "windows: run as root to install: $*" >&2
    exit 1
  fi
  $sudo "$@"
}
missing=()
for p in "${packages[@]}"; do
  # One line per architecture installed (multiarch: scripts/arm64.sh adds arm64).
  if ! dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "windows: installing ${missing[*]}" >&2
  start=$SECONDS
  export DEBIAN_FRONTEND=noninteractive
  if ! as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
    as_root apt-get update -qq
    as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  echo "windows: installed in $((SECONDS - start)) s" >&2
fi

# --- compile --------------------------------------------------------------------------------------
werror=OFF
if [ "${CI:-}" = "true" ]; then
  werror=ON
fi
start=$SECONDS
# -O2 as the release build (code generation is part of what is checked), no debug info: the
# objects are never run.
cmake -S cmake/windows -B "$build_dir" \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/x86_64-w64-mingw32.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
  -DIDEM_WERROR="$werror" -DIDEM_UNITY_BUILD=ON "$@" >/dev/null
# The library and, as the native test design.headers_alone does, every public header alone.
cmake --build "$build_dir" -j "$jobs" --target idem idem_headers_alone
echo "windows: libidem.a and the public headers alone built in $((SECONDS - start)) s" >&2
