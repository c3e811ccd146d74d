#!/usr/bin/env bash
# CTest's package check. Installs this build tree into a scratch prefix, then:
#  - builds tests/package/consumer against it with find_package(idem) (CMake);
#  - builds the same consumer with a plain compiler line from `pkg-config --cflags --libs idem`;
#  - configures it against stand-in Boost packages, to prove that the CMake package takes any
#    Boost from 1.81 on (a 1.86 is used) and passes over an older one (a 1.80 is skipped);
#  - starts the installed mock server on a free loopback port and runs both consumers against it;
#  - checks the test kit (idem::testing, idem-testing.pc), then builds examples/testing_with_idem
#    (an app's integration tests with the kit, GoogleTest) against it and runs them with CTest.
#   check_installed_package.sh CMAKE BUILD_DIR CONSUMER_SOURCE CXX_COMPILER [EXTRA_CXX_FLAGS]
set -euo pipefail
cmake_bin=$1 build_dir=$2 consumer_source=$3 cxx=$4 extra_flags=${5:-}
repo=$(cd "$(dirname "$0")/../.." && pwd)
example_source="$repo/examples/testing_with_idem"
work="$build_dir/package-test"
rm -rf "$work"
mkdir -p "$work"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" || true; }
trap cleanup EXIT
fail() { echo "package check: $*" >&2; exit 1; }

"$cmake_bin" --install "$build_dir" --prefix "$work/prefix" >"$work/install.log"
# The library directory is GNUInstallDirs' CMAKE_INSTALL_LIBDIR: lib on Debian, lib64 or
# lib/<multiarch> elsewhere. Whichever it is, it holds the archive, the CMake package and idem.pc.
libdir=""
for candidate in "$work"/prefix/lib*/libidem.a "$work"/prefix/lib/*/libidem.a; do
  [ -e "$candidate" ] && libdir=$(dirname "${candidate#"$work/prefix/"}") && break
done
[ -n "$libdir" ] || fail "not installed: lib*/libidem.a"
for file in "$libdir/libidem.a" include/idem/client.hpp include/idem/version.hpp \
  "$libdir/cmake/idem/idemConfig.cmake" "$libdir/cmake/idem/idemConfigVersion.cmake" \
  "$libdir/cmake/idem/idemTargets.cmake" "$libdir/pkgconfig/idem.pc" \
  "$libdir/libidem_testing.a" "$libdir/pkgconfig/idem-testing.pc" include/idem/testing/kit.hpp \
  bin/idem-cli bin/idem-mock-server share/doc/idem/LICENSE; do
  [ -e "$work/prefix/$file" ] || fail "not installed: $file"
done
# The license is named wherever a user meets the package: the CMake package and both .pc files.
cmp -s "$repo/LICENSE" "$work/prefix/share/doc/idem/LICENSE" || fail "share/doc/idem/LICENSE differs"
grep -q '^set(idem_LICENSE "Apache-2.0")$' "$work/prefix/$libdir/cmake/idem/idemConfig.cmake" ||
  fail "idemConfig.cmake does not name the license"
for pc in idem idem-testing; do
  grep -qx 'License: Apache-2.0' "$work/prefix/$libdir/pkgconfig/$pc.pc" ||
    fail "$pc.pc does not name the license"
done

# --- 1. CMake: find_package(idem) ---------------------------------------------------------------
"$cmake_bin" -S "$consumer_source" -B "$work/consumer" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_FLAGS="$extra_flags" -DCMAKE_EXE_LINKER_FLAGS="$extra_flags"
"$cmake_bin" --build "$work/consumer" -j 2

# --- 2. pkg-config and a plain compiler line ----------------------------------------------------
command -v pkg-config >/dev/null || fail "pkg-config is not installed (Debian: pkgconf)"
export PKG_CONFIG_PATH="$work/prefix/$libdir/pkgconfig"
pc_version=$(pkg-config --modversion idem)
installed_version=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' \
  "$work/prefix/$libdir/cmake/idem/idemConfigVersion.cmake")
[ "$pc_version" = "$installed_version" ] ||
  fail "pkg-config says idem $pc_version, the CMake package $installed_version"
echo "pkg-config: idem $pc_version: $(pkg-config --cflags --libs idem)"
# shellcheck disable=SC2046 # pkg-config's output is meant to be split into words
"$cxx" -std=c++20 $extra_flags -DIDEM_PACKAGE_VERSION="\"$pc_version\"" \
  $(pkg-config --cflags idem) "$consumer_source/main.cpp" -o "$work/idem_consumer_pc" \
  $(pkg-config --libs idem)

# --- 3. Boost versions the CMake package accepts ------------------------------------------------
# A stand-in Boost package: config files only (Boost::headers without headers, enough to
# configure), and a version file with Boost's own rule (any newer version is compatible).
fake_boost() {
  local version=$1 dir="$work/boost-$1/lib/cmake/Boost-$1"
  mkdir -p "$dir"
  cat >"$dir/BoostConfig.cmake" <<EOF
set(Boost_VERSION $version)
if(NOT TARGET Boost::headers)
  add_library(Boost::headers INTERFACE IMPORTED)
endif()
EOF
  cat >"$dir/BoostConfigVersion.cmake" <<EOF
set(PACKAGE_VERSION $version)
if(PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
endif()
EOF
}
# The Boost version the consumer's configure settled for with stand-in Boost VERSION first.
boost_chosen_with() {
  fake_boost "$1"
  "$cmake_bin" -S "$consumer_source" -B "$work/consumer-boost-$1" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_PREFIX_PATH="$work/boost-$1;$work/prefix" >"$work/consumer-boost-$1.log" 2>&1 ||
    { cat "$work/consumer-boost-$1.log" >&2; fail "configure with Boost $1 failed"; }
  sed -n 's/.*idem consumer: idem .*, Boost \(.*\)$/\1/p' "$work/consumer-boost-$1.log"
}
newer=$(boost_chosen_with 1.86.0)
[ "$newer" = "1.86.0" ] || fail "a Boost 1.86 was not accepted (got '$newer')"
older=$(boost_chosen_with 1.80.0)
[ -n "$older" ] && [ "$older" != "1.80.0" ] || fail "a Boost 1.80 was accepted (got '$older')"
echo "Boost: 1.86.0 accepted; 1.80.0 passed over for the system's $older"

# --- 4. both consumers against the installed mock server ----------------------------------------
mkfifo "$work/server-out"
"$work/prefix/bin/idem-mock-server" --listen 127.0.0.1:0 --db "$work/server.db" \
  --admin-token package-test-admin >"$work/server-out" 2>"$work/server.log" &
server_pid=$!
exec 3<"$work/server-out"
read -r first_line <&3 || { echo "mock server did not start:" >&2; cat "$work/server.log" >&2; exit 1; }
url=${first_line#listening on }
echo "installed mock server: $url"
echo "== consumer built with CMake"
"$work/consumer/idem_consumer" "$url" package-test-shop
echo "== consumer built with pkg-config"
"$work/idem_consumer_pc" "$url" package-test-shop

# --- 5. the test kit -----------------------------------------------------------------------------
[ "$(pkg-config --modversion idem-testing)" = "$pc_version" ] ||
  fail "pkg-config says idem-testing $(pkg-config --modversion idem-testing), idem $pc_version"
# With a plain compiler line: the kit alone (no SDK, no GoogleTest) finds the installed server.
cat >"$work/kit_consumer.cpp" <<'EOF'
#include <iostream>
#include "idem/testing/kit.hpp"
int main() {
  auto found = idem::kit::find_mock_server();
  std::cout << "kit (pkg-config): " << (found ? *found : found.describe()) << "\n";
  return found ? 0 : 1;
}
EOF
# shellcheck disable=SC2046 # pkg-config's output is meant to be split into words
"$cxx" -std=c++20 $extra_flags $(pkg-config --cflags idem-testing) "$work/kit_consumer.cpp" \
  -o "$work/kit_consumer" $(pkg-config --libs idem-testing)
IDEM_MOCK_SERVER="$work/prefix/bin/idem-mock-server" "$work/kit_consumer"

# An app's integration tests with the kit, built with CMake and run by CTest as an app's own
# suite would be: the kit starts the installed server under each fault preset.
echo "== examples/testing_with_idem"
"$cmake_bin" -S "$example_source" -B "$work/testing-example" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_FLAGS="$extra_flags" -DCMAKE_EXE_LINKER_FLAGS="$extra_flags"
"$cmake_bin" --build "$work/testing-example" -j 2
"$(dirname "$cmake_bin")/ctest" --test-dir "$work/testing-example" --output-on-failure

# Run by hand, outside CTest and without IDEM_MOCK_SERVER, from an install under a prefix other
# than the one idem was configured with: the kit finds the server of the package it was built
# against (find_mock_server's third place), not only under the configure-time prefix.
echo "== the example's tests run by hand (no IDEM_MOCK_SERVER)"
(unset IDEM_MOCK_SERVER; cd "$work" && PATH=/usr/bin:/bin \
  "$work/testing-example/checkout_test" --gtest_filter='Presets/*lost_responses')
