#!/usr/bin/env bash
# Builds lockcheck (installing missing dependencies first) and runs the whole test suite
# through CTest, then again under AddressSanitizer and UBSan with the fuzz targets' smoke tests
# (the asan preset of CMakePresets.json, built in build-asan/). This is the README's test
# command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
(cd build && ctest --output-on-failure -j "$(nproc)")

# The suite again under AddressSanitizer and UBSan, with the fuzz targets' smoke tests: the asan
# preset of CMakePresets.json, one instrumented build in build-asan/ (clang). Searches run 10-30
# times slower there: the groups that repeat exhaustive searches over every model and strategy
# or over shards (10 minutes of CPU there), and Determinism, which runs every model under every
# strategy twice to compare bytes (the build above compares them), are left to a full run by
# hand, `ctest --preset asan`. Every shipped variant is still checked there (CheckAll,
# ProtocolVariants), and every strategy (Strategies).
asan_skip='^(Dpor|Cli|KeepGoingSearches|Minimize|Determinism|StateCacheVariants|JobsVariants|Shards|ShardsVariants)$'
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$(nproc)"
ctest --preset asan -j "$(nproc)" -E "$asan_skip"
