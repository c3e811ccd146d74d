#!/usr/bin/env bash
# Installs the Debian 12 packages idem needs to build and test, if any is missing, then the npm
# packages of the interop tests (tests/interop) if they are missing or older than their lock.
# Idempotent and quiet when everything is there. Needs root (or sudo) only when it installs.
set -euo pipefail

packages=(
  g++ make cmake
  clang-16 libclang-rt-16-dev  # the libFuzzer targets, built by CI with ASan+UBSan (docs/CI.md)
  libc++-16-dev libc++abi-16-dev  # clang's libc++ (Android's, Apple's): CI's TSan build (IDEM_LIBCXX)
  lld                     # the linker of every configuration (cmake/linker.cmake)
  libboost1.81-dev        # Asio and Beast; Debian's default libboost-dev is 1.74, too old
  libcurl4-openssl-dev libssl-dev nlohmann-json3-dev libsqlite3-dev
  libcli11-dev            # CLI11, header-only: the tools' command lines, help and --version
  libgtest-dev libgmock-dev libbenchmark-dev
  googletest              # its sources: a libc++ build compiles GoogleTest itself (IDEM_LIBCXX)
  ca-certificates curl    # curl: scripts/demo.sh reads the server's /_mock/stats
  pkgconf                 # the installed-package test also links through idem.pc
  nodejs                  # the interop tests run idempotency layers written for Node
  strace                  # scripts/perf.sh counts the journal's fsync calls per intent with it
)

# One line per installed architecture of a package: once scripts/arm64.sh has added arm64, a
# library can be there twice, and only this machine's own (or an arch-independent) one counts.
native=$(dpkg --print-architecture)
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Architecture} ${db:Status-Status}\n' "$p" 2>/dev/null |
      grep -Eqx "($native|all) installed"; then
    missing+=("$p")
  fi
done
# npm: Debian's package, unless the nodejs installed brings its own (NodeSource's does, and
# conflicts with Debian's npm).
command -v npm >/dev/null || missing+=(npm)

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: run as root to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The interop tests' npm packages, pinned by tests/interop/package-lock.json. Without the
# registry they cannot be had: say so once and go on (those tests then skip, saying why).
interop="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/interop"
if [ ! -d "$interop/node_modules" ] || [ "$interop/package-lock.json" -nt "$interop/node_modules" ]; then
  if (cd "$interop" && npm ci --no-audit --no-fund --loglevel=error >/dev/null 2>&1); then
    touch "$interop/node_modules"  # npm ci keeps old mtimes; this marks the lock as installed
  else
    rm -rf "$interop/node_modules"  # half an install would look complete to the next run
    echo "setup: npm ci in tests/interop failed (no npm registry?): the interop tests will skip" >&2
  fi
fi
