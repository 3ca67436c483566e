#!/usr/bin/env bash
# Same input, same output: runs every model (its default variant and its first variant declared
# broken) under every strategy and dfs with --state-cache, with and without --keep-going, and
# `compare` on every model, twice each with --no-timing, and requires byte-identical stdout,
# exit code, JSON and JUnit files; and replays each counterexample DFS saved twice.
# With OPTION, a switch that must change nothing a run reports (--unwind-tasks: tasks cut
# mid-code unwound instead of dropped with the execution's memory), each pair's second run of a
# model adds it; replays and compare are then left out, as the option is not theirs.
# Usage: determinism.sh LOCKCHECK_BINARY [OPTION]
set -uo pipefail
binary=$1
option=${2:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0 pairs=0

# "MODEL VARIANT" lines: each model's default variant and its first broken one.
variants=$("$binary" list --json | python3 -c '
import json, sys
for m in json.load(sys.stdin)["models"]:
    vs = m["variants"]
    default = next(v for v in vs if v["default"])
    print(m["name"], default["name"])
    broken = [v for v in vs if v["expected"]["verdict"] == "violation" and v is not default]
    if broken:
        print(m["name"], broken[0]["name"])
')

# shellcheck source=tests/run_reports.sh
. "$(dirname "$0")/run_reports.sh"

while read -r model variant; do
  for strategy in dfs "dfs --state-cache" bfs dpor optimal-dpor random pct; do
    for keep in "" --keep-going; do
      # $strategy unquoted: "dfs --state-cache" is the strategy and its option.
      # shellcheck disable=SC2086
      args=("$model" --variant "$variant" --strategy $strategy --max-executions 2000 $keep)
      [[ $strategy == random || $strategy == pct ]] && args+=(--iterations 300)
      run a "${args[@]}"
      run b "${args[@]}" ${option:+"$option"}
      # The reports record the command line, the option in it.
      [[ -n $option ]] && sed -i "s/ $option//" "$dir/b/run.json" "$dir/b/run.xml"
      pairs=$((pairs + 1))
      if ! diff -r "$dir/a" "$dir/b" >"$dir/diff"; then
        echo "FAIL: lockcheck ${args[*]} --no-timing differs between two runs${option:+ (the second with $option)}:"
        head -20 "$dir/diff"
        failed=1
      fi
      if grep -q "elapsed" "$dir/a/out"; then
        echo "FAIL: lockcheck ${args[*]} --no-timing prints an elapsed row"
        failed=1
      fi
      # A counterexample saved by the first run, replayed twice.
      if [[ -z $option && $(cat "$dir/a/exit") == 1 && $strategy == dfs && -z $keep ]]; then
        "$binary" replay "$dir/a/run.json" --no-timing --no-pager >"$dir/replay-a" 2>&1
        replayed=$?
        "$binary" replay "$dir/a/run.json" --no-timing --no-pager >"$dir/replay-b" 2>&1
        pairs=$((pairs + 1))
        if [[ $replayed != 1 ]] || ! cmp -s "$dir/replay-a" "$dir/replay-b" ||
          grep -q "elapsed" "$dir/replay-a"; then
          echo "FAIL: lockcheck replay of ${args[*]} --no-timing differs or prints a time"
          failed=1
        fi
      fi
    done
  done
done <<<"$variants"
# compare_run N MODEL: a compare of the model's declared pair (a model without one: its error).
compare_run() {
  local n=$1
  rm -rf "$dir/$n" && mkdir -p "$dir/$n"
  "$binary" compare "$2" --no-timing -q --max-executions 2000 --json "$dir/compare.json" \
    >"$dir/$n/out" 2>"$dir/$n/err"
  echo $? >"$dir/$n/exit"
  [[ -f $dir/compare.json ]] && mv "$dir/compare.json" "$dir/$n/"
}

[[ -n $option ]] && models="" || models=$(cut -d' ' -f1 <<<"$variants" | uniq)
for model in $models; do
  compare_run a "$model"
  compare_run b "$model"
  pairs=$((pairs + 1))
  if ! diff -r "$dir/a" "$dir/b" >"$dir/diff"; then
    echo "FAIL: lockcheck compare $model --no-timing differs between two runs:"
    head -20 "$dir/diff"
    failed=1
  fi
done
echo "$pairs pairs of runs compared"
exit $failed
