#!/usr/bin/env bash
# Installs lockcheck's Debian 12 build dependencies that are missing (only those; safe to run
# again), then configures and builds into build/. Run as root, or with sudo available.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++ cmake make pkg-config libboost-context-dev libgraphviz-dev cpputest
          libcpputest-dev libcli11-dev nlohmann-json3-dev libxml2-dev help2man python3-jsonschema
          valgrind parallel libjemalloc-dev)
# The fuzz targets (fuzz/, run by tools/test.sh): clang 16 and its libFuzzer runtime.
packages+=(clang-16 libclang-rt-16-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" >/dev/null
cmake --build build -j "$(nproc)"
