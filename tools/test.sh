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
# times slower there. Left to a full run by hand, `ctest --preset asan`: the groups that repeat
# exhaustive searches over every model and strategy or over shards, ClassicBenchmarks (counts
# pinned at the published sizes), every shipped variant's pinned counts, past its violation too
# (ProtocolVariants), and under --memory-model lkmm (ProtocolVariantsLkmm), Seqcount (its lkmm
# searches of a reader beside two writers: 37 s in the build above, past 600 s here),
# RcuImplicitReadersDpor (DFS of two implicit readers under lkmm against DPOR: 78 s in the build
# above on the loaded fresh-clone CI at 8fc8258, past 600 s here), and Determinism and
# DroppedAsUnwound, which run every model under every strategy twice to compare bytes (the
# second time the same or with --unwind-tasks), and the Checkpoints tests, which compare runs with
# checkpoints and without, where checkpoints are off (a restored stack would keep ASan's shadow
# of the bytes it held before); the build above runs them all. Every shipped variant is still checked there (CheckAll), every strategy (Strategies), and
# DPOR, the state cache and --jobs against DFS on a quarter of the generated models
# (DporGenerated, StateCacheGenerated, JobsGenerated).
asan_skip='^(ProtocolVariants|ProtocolVariantsLkmm|Dpor|DporVariants|Cli|KeepGoingSearches|Minimize|Determinism|ClassicBenchmarks|StateCacheVariants|StateCacheVariantsMore|JobsVariants|JobsVariantsMore|Shards|ShardsVariants|ShardsVariantsMore|Seqcount|RcuImplicitReadersDpor|DroppedAsUnwound|Checkpoints.*)$'
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$(nproc)"
ctest --preset asan -j "$(nproc)" -E "$asan_skip"
