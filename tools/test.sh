#!/usr/bin/env bash
# Builds lockcheck (installing missing dependencies first) and runs the whole test suite
# through CTest, then the fuzz targets' smoke tests, then the suite again under AddressSanitizer
# and UBSan (the asan preset of CMakePresets.json, built in build-asan/). This is the README's
# test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
(cd build && ctest --output-on-failure -j "$(nproc)")

# The fuzz targets' smoke tests (fuzz/, a few seconds each), in a build directory of their own
# with clang; unoptimized, as they only need to build fast here (README, "Fuzzing", for long runs).
CC=clang-16 CXX=clang++-16 cmake -S . -B build-fuzz -DLOCKCHECK_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target fuzz_schedule fuzz_replay_json fuzz_command_line
(cd build-fuzz && ctest --output-on-failure -j "$(nproc)")

# Searches run 10-20 times slower under the sanitizers: the groups that repeat exhaustive
# searches over every model and strategy (half an hour of CPU there) are left to a full run by
# hand, `ctest --preset asan`. Every shipped variant is still checked once (CheckAll).
asan_skip='^(Dpor|DporGenerated|Cli|KeepGoingSearches|Minimize|ClassicBenchmarks|ProtocolVariants)$'
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$(nproc)"
ctest --preset asan -j "$(nproc)" -E "$asan_skip"
