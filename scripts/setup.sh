#!/usr/bin/env bash
# Installs the Debian 12 packages idem needs to build and test, if any is missing.
# Idempotent and quiet when everything is there. Needs root (or sudo) only when it installs.
set -euo pipefail

packages=(
  g++ make cmake
  libboost1.81-dev        # Asio and Beast; Debian's default libboost-dev is 1.74, too old
  libcurl4-openssl-dev libssl-dev nlohmann-json3-dev libsqlite3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  ca-certificates curl    # curl: scripts/demo.sh reads the server's /_mock/stats
  pkgconf                 # the installed-package test also links through idem.pc
  nodejs                  # the interop tests run idempotency layers written for Node
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: run as root to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
