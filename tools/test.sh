#!/usr/bin/env bash
# Builds lockcheck (installing missing dependencies first) and runs the whole test suite
# through CTest. This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cd build
exec ctest --output-on-failure -j "$(nproc)"
