#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test with CTest.
#   bash scripts/test.sh            # build/ (RelWithDebInfo)
#   BUILD_DIR=build-asan bash scripts/test.sh -DIDEM_SANITIZE=ON
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build_dir=${BUILD_DIR:-build}
bash scripts/build.sh "$build_dir" "$@"
ctest --test-dir "$build_dir" --output-on-failure -j "${IDEM_JOBS:-2}"
