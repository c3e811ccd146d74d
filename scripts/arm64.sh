#!/usr/bin/env bash
# The SDK on arm64, from a fresh Debian 12 x86-64 machine: installs what is missing (Debian's
# arm64 cross compiler, the arm64 libraries through multiarch, qemu-user), cross-builds the SDK
# and its own tests in build-arm64/ (cmake/toolchains/aarch64-linux-gnu.cmake, IDEM_TEST_SET=sdk:
# unit tests and the client's integration tests against the in-process mock server), and runs
# them with CTest under qemu-user. Exits non-zero on any failure; prints how long the build and
# the tests took. Needs root (or sudo) only when it installs.
#   bash scripts/arm64.sh
#   BUILD_DIR=build-arm64-g1 bash scripts/arm64.sh -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1"
# (arguments go to cmake after the script's own). IDEM_JOBS (default 2): the build's and CTest's
# parallelism. Under CI=true warnings are errors, as in the other builds (docs/CI.md).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build-arm64}
jobs=${IDEM_JOBS:-2}

# --- what is missing ------------------------------------------------------------------------------
packages=(
  cmake make
  g++-aarch64-linux-gnu qemu-user
  # Header-only for idem: the build machine's copies in /usr/include serve the cross compiler.
  libboost1.81-dev nlohmann-json3-dev
  libcurl4-openssl-dev:arm64 libssl-dev:arm64 libsqlite3-dev:arm64 libgtest-dev:arm64
  # The runtime the tests run on under qemu, with libc6:arm64 (the toolchain file says why).
  libstdc++6:arm64
)
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
as_root() {
  if [ -n "$sudo" ] && ! command -v sudo >/dev/null; then
    echo "arm64: run as root to install: $*" >&2
    exit 1
  fi
  $sudo "$@"
}
added_arm64=false
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "arm64: dpkg --add-architecture arm64" >&2
  as_root dpkg --add-architecture arm64
  added_arm64=true
fi
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "arm64: installing ${missing[*]}" >&2
  start=$SECONDS
  export DEBIAN_FRONTEND=noninteractive
  # The arm64 package lists come with the first update after adding the architecture; an
  # existing list is refreshed only if the install cannot find what it needs in it.
  if $added_arm64 || ! compgen -G '/var/lib/apt/lists/*_binary-arm64_Packages*' >/dev/null ||
    ! as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
    as_root apt-get update -qq
    as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  echo "arm64: installed in $((SECONDS - start)) s" >&2
fi

# --- build ----------------------------------------------------------------------------------------
werror=OFF
if [ "${CI:-}" = "true" ]; then
  werror=ON
fi
# Boost is header-only for idem (Asio, Beast). Its CMake package from the build machine's
# libboost1.81-dev only names /usr/include, the same for every architecture; so it stands in for
# libboost1.81-dev:arm64, which would bring a second copy of Boost's headers (150 MB unpacked)
# and an arm64 libstdc++-12-dev, for nothing.
boost_dir=()
if [ ! -d /usr/lib/aarch64-linux-gnu/cmake/Boost-1.81.0 ]; then
  boost_dir=(-DBoost_DIR="/usr/lib/$(uname -m)-linux-gnu/cmake/Boost-1.81.0")
fi
start=$SECONDS
# -O1 -g0: -O0 compiles no faster (the time goes to parsing Asio, Beast and GoogleTest), and its
# tests run much slower under qemu, too slow for the 10 s deadline of 200 intents
# sent at once (LiveClientThreads); no debug info: a failure under qemu is reproduced natively or
# in a build of its own with -g1.
cmake -S . -B "$build_dir" -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g0" \
  -DIDEM_WERROR="$werror" -DIDEM_UNITY_BUILD=ON -DIDEM_TEST_SET=sdk -DIDEM_BUILD_EXAMPLES=OFF \
  -DIDEM_BUILD_BENCH=OFF \
  "${boost_dir[@]}" "$@" >/dev/null
# Only the SDK's test programs and what they link (the SDK, the mock server's core, the test
# support); gtest_discover_tests lists each program's tests under qemu right after linking it.
cmake --build "$build_dir" -j "$jobs" --target idem_test_programs
echo "arm64: configured and built in $((SECONDS - start)) s" >&2

# --- tests ----------------------------------------------------------------------------------------
start=$SECONDS
status=0
ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" -LE soak || status=$?
echo "arm64: tests ran in $((SECONDS - start)) s" >&2
exit "$status"
