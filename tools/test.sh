#!/usr/bin/env bash
# Builds lockcheck (installing missing dependencies first) and runs the whole test suite
# through CTest, then the fuzz targets' smoke tests. This is the README's test command and what
# CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
(cd build && ctest --output-on-failure -j "$(nproc)")

# The fuzz targets' smoke tests (fuzz/, a few seconds each), in a build directory of their own
# with clang; unoptimized, as they only need to build fast here (README, "Fuzzing", for long runs).
CC=clang-16 CXX=clang++-16 cmake -S . -B build-fuzz -DLOCKCHECK_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target fuzz_schedule fuzz_replay_json fuzz_command_line
cd build-fuzz
exec ctest --output-on-failure -j "$(nproc)"
