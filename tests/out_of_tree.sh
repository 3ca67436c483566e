#!/usr/bin/env bash
# The out-of-tree test: install lockcheck from this build into a fresh prefix, build
# examples/out-of-tree/ against that installed package only (find_package, lockcheck_add_model),
# and run what a user's CI would: its binary's own models and its CTest entry (check-all).
# The project is built in WORK_DIR/build (the prefix is WORK_DIR/prefix), where the guide's
# commands run next (docs/writing-models.md, tests/doc_commands.sh).
# Usage: out_of_tree.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1
source=$2
work=$3
rm -rf "$work"
mkdir -p "$work"

cmake --install "$build" --prefix "$work/prefix" >/dev/null
# Only the prefix: nothing of the lockcheck tree may be needed to build a user's models. The
# user's compiler is lockcheck's: a sanitizer build (the asan preset, clang) links the
# sanitizers' runtimes into the user's binary, and they must be that compiler's.
compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
cmake -S "$source/examples/out-of-tree" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$compiler" >/dev/null
cmake --build "$work/build" -j 2 >/dev/null

bin="$work/build/my-lockcheck"
list=$("$bin" list)
grep -q '^handshake  *wait-event (default)  *verified' <<<"$list"
grep -q '^rename-pin ' <<<"$list" # the shipped models stand beside the user's
set +e
"$bin" handshake --variant test-then-sleep >"$work/out.txt"
code=$?
set -e
[ "$code" -eq 1 ] || { echo "handshake test-then-sleep: exit $code, expected 1"; exit 1; }
grep -q '^VIOLATION (hang)' "$work/out.txt"
# Replay lines name the user's binary, not lockcheck.
grep -qF "replay: $bin handshake --variant test-then-sleep --waiters 1 --replay " "$work/out.txt"
ctest --test-dir "$work/build" --output-on-failure
# lockcheck_add_test(... SIZES --waiters 2) ran handshake's variants with two waiters.
ctest --test-dir "$work/build" -R '^handshake-two-waiters$' -V >"$work/sized.txt"
grep -q '^[0-9: ]*handshake  *wait-event  *waiters=2 ' "$work/sized.txt" ||
  { echo "handshake-two-waiters did not run handshake with --waiters 2:"; cat "$work/sized.txt"; exit 1; }
echo "out-of-tree: built against the installed package, models and check-all pass"
