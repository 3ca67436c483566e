#!/usr/bin/env bash
# The out-of-tree test: install lockcheck from this build into a fresh prefix, build
# examples/out-of-tree/ against that installed package only (find_package, lockcheck_add_model),
# and run what a user's CI would: its binary's own models and its CTest entry (check-all). It
# holds the installed API to its promise too: <lockcheck/lockcheck.hpp> compiles with nothing
# but the prefix's include directory, a model built with the package's flags cannot include
# lockcheck's internal headers, and the user's binary has every shipped model.
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

# The public header alone, with only -I PREFIX/include.
echo '#include <lockcheck/lockcheck.hpp>' |
  "$compiler" -std=c++20 -fsyntax-only -I "$work/prefix/include" -x c++ - ||
  { echo "<lockcheck/lockcheck.hpp> does not compile with only -I $work/prefix/include"; exit 1; }
# ... and every installed header is one it includes: nothing else of lockcheck is installed.
include="$(realpath "$work/prefix/include")"
diff <(echo '#include <lockcheck/lockcheck.hpp>' |
  "$compiler" -std=c++20 -MM -I "$include" -x c++ - | tr -s ' \\' '\n\n' |
  grep "^$include/" | xargs realpath --relative-to="$include" | sort -u) \
  <(cd "$include" && find . -name '*.hpp' | sed 's|^\./||' | sort) ||
  { echo "the headers <lockcheck/lockcheck.hpp> includes (<) and those installed (>) differ"; exit 1; }

# An internal header, included as lockcheck's own sources do or through the package's
# directory, is not found with the package's flags (lockcheck_add_model's, as a user builds).
probe="$work/internal-include"
mkdir -p "$probe"
cat >"$probe/CMakeLists.txt" <<'END'
cmake_minimum_required(VERSION 3.25)
project(lockcheck-internal-include LANGUAGES CXX)
find_package(lockcheck 0.2 REQUIRED)
foreach(probe quoted angled packaged)
  lockcheck_add_model(${probe} SOURCES ${probe}.cpp)
endforeach()
END
echo '#include "scheduler/execution.hpp"' >"$probe/quoted.cpp"
echo '#include <scheduler/execution.hpp>' >"$probe/angled.cpp"
echo '#include <lockcheck/scheduler/execution.hpp>' >"$probe/packaged.cpp"
cmake -S "$probe" -B "$probe/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_COMPILER="$compiler" >/dev/null
for target in quoted angled packaged; do
  if cmake --build "$probe/build" --target "$target" >"$probe/$target.log" 2>&1; then
    echo "$(cat "$probe/$target.cpp"): an internal header reached through the package"
    exit 1
  fi
  grep -Eq 'scheduler/execution.hpp.*(No such file|file not found)' "$probe/$target.log" || {
    echo "$target: failed for another reason than the missing header:"
    cat "$probe/$target.log"
    exit 1
  }
done

# Namespace lockcheck holds the API alone: a model that names the checker's own types or
# functions there does not build, while one written with kernel names does.
names="$work/internal-names"
mkdir -p "$names"
cat >"$names/CMakeLists.txt" <<'END'
cmake_minimum_required(VERSION 3.25)
project(lockcheck-internal-names LANGUAGES CXX)
find_package(lockcheck 0.2 REQUIRED)
foreach(probe kernel_names execution task)
  lockcheck_add_model(${probe} SOURCES ${probe}.cpp)
endforeach()
END
probe_model() { # NAME STATEMENT: a model whose task runs STATEMENT
  cat >"$names/$1.cpp" <<END
#include <lockcheck/lockcheck.hpp>
using namespace lockcheck;
static Protocol probe() {
    return Protocol{.name = "probe",
                    .variants = {{"only", "a probe", Expectation::verified()}},
                    .setup = [](std::size_t, const ParameterValues&) {
                        spawn("t", [] { $2; });
                    }};
}
LOCKCHECK_MODEL(probe);
END
}
probe_model kernel_names 'struct mutex& m = model_state<struct mutex>("m"); mutex_lock(&m); mutex_unlock(&m)'
probe_model execution 'this_execution()'
probe_model task 'Task* t = nullptr; (void)t'
cmake -S "$names" -B "$names/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_COMPILER="$compiler" >/dev/null
cmake --build "$names/build" --target kernel_names >"$names/kernel_names.log" 2>&1 ||
  { echo "a model written with kernel names only does not build:"; cat "$names/kernel_names.log"; exit 1; }
for target in execution task; do
  if cmake --build "$names/build" --target "$target" >"$names/$target.log" 2>&1; then
    echo "a model naming lockcheck's internals ($target) builds: they are in namespace lockcheck"
    exit 1
  fi
  # GCC: "'Task' was not declared"; clang: "use of undeclared identifier 'Task'".
  grep -E "this_execution|Task" "$names/$target.log" |
    grep -Eq "was not declared|does not name|undeclared identifier|unknown type name" || {
    echo "$target: failed for another reason than the undeclared name:"
    cat "$names/$target.log"
    exit 1
  }
done

bin="$work/build/my-lockcheck"
list=$("$bin" list)
grep -q '^handshake  *wait-event (default)  *verified' <<<"$list"
# Every shipped model and variant stands beside the user's, as in the installed lockcheck.
models_and_variants() { awk '$1 !~ /^(freeze|handshake|publish|rcu-lookup|refcache|refcache-first-try)$/ { print $1, $2 }'; }
diff <("$work/prefix/bin/lockcheck" list | models_and_variants) <(models_and_variants <<<"$list") ||
  { echo "my-lockcheck list lacks shipped models of lockcheck list (< above)"; exit 1; }
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
