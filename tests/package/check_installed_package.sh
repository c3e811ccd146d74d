#!/usr/bin/env bash
# CTest's package check: installs this build tree into a scratch prefix, configures and builds
# tests/package/consumer against it with find_package(idem), starts the installed mock server
# on a free loopback port and runs the consumer against it.
#   check_installed_package.sh CMAKE BUILD_DIR CONSUMER_SOURCE CXX_COMPILER [EXTRA_CXX_FLAGS]
set -euo pipefail
cmake_bin=$1 build_dir=$2 consumer_source=$3 cxx=$4 extra_flags=${5:-}
work="$build_dir/package-test"
rm -rf "$work"
mkdir -p "$work"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" || true; }
trap cleanup EXIT

"$cmake_bin" --install "$build_dir" --prefix "$work/prefix" >"$work/install.log"
# The library directory is GNUInstallDirs' CMAKE_INSTALL_LIBDIR: lib on Debian, lib64 or
# lib/<multiarch> elsewhere. Whichever it is, it holds both the archive and the CMake package.
libdir=""
for candidate in "$work"/prefix/lib*/libidem.a "$work"/prefix/lib/*/libidem.a; do
  [ -e "$candidate" ] && libdir=$(dirname "${candidate#"$work/prefix/"}") && break
done
[ -n "$libdir" ] || { echo "not installed: lib*/libidem.a" >&2; exit 1; }
for file in "$libdir/libidem.a" include/idem/client.hpp "$libdir/cmake/idem/idemConfig.cmake" \
  "$libdir/cmake/idem/idemConfigVersion.cmake" "$libdir/cmake/idem/idemTargets.cmake" \
  bin/idem-cli bin/idem-mock-server; do
  [ -e "$work/prefix/$file" ] || { echo "not installed: $file" >&2; exit 1; }
done

"$cmake_bin" -S "$consumer_source" -B "$work/consumer" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_FLAGS="$extra_flags" -DCMAKE_EXE_LINKER_FLAGS="$extra_flags"
"$cmake_bin" --build "$work/consumer" -j 2

mkfifo "$work/server-out"
"$work/prefix/bin/idem-mock-server" --listen 127.0.0.1:0 --db "$work/server.db" \
  --admin-token package-test-admin >"$work/server-out" 2>"$work/server.log" &
server_pid=$!
exec 3<"$work/server-out"
read -r first_line <&3 || { echo "mock server did not start:" >&2; cat "$work/server.log" >&2; exit 1; }
url=${first_line#listening on }
echo "installed mock server: $url"
"$work/consumer/idem_consumer" "$url" package-test-shop
