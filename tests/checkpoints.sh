#!/usr/bin/env bash
# Checkpoints change how executions are reached, never what a search reports: every variant of
# every shipped model, under a search that goes on from checkpoints, with and without
# --keep-going, gives the same stdout, exit code, JSON and JUnit with checkpoints as with
# --no-checkpoints (each execution replayed from its start): on one thread for its first MAX
# executions (default 3000), and on two threads when that was the whole search.
# Usage: checkpoints.sh LOCKCHECK_BINARY [MAX [SEARCH...]]
# SEARCH: the options that choose the search (default: --strategy dfs).
set -uo pipefail
binary=$1
max=${2:-3000}
search=("${@:3}")
[[ ${#search[@]} -gt 0 ]] || search=(--strategy dfs)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0 pairs=0

variants=$("$binary" list --json | python3 -c '
import json, sys
for m in json.load(sys.stdin)["models"]:
    for v in m["variants"]:
        print(m["name"], v["name"])
')

# shellcheck source=tests/run_reports.sh
. "$(dirname "$0")/run_reports.sh"

# compare ARGS...: the run with checkpoints against the run with --no-checkpoints.
compare() {
  run a "$@"
  run b "$@" --no-checkpoints
  sed -i "s/ --no-checkpoints//" "$dir/b/run.json" "$dir/b/run.xml"
  pairs=$((pairs + 1))
  if ! diff -r "$dir/a" "$dir/b" >"$dir/diff"; then
    echo "FAIL: lockcheck $* differs with checkpoints and with --no-checkpoints:"
    head -20 "$dir/diff"
    failed=1
  fi
}

while read -r model variant; do
  for keep in "" --keep-going; do
    compare "$model" --variant "$variant" "${search[@]}" -j 1 --max-executions "$max" $keep
    # A search that ended within MAX executions runs again on two threads, split into parts
    # that each go on from their own checkpoints (--max-executions would keep it on one): one
    # that verified, or stopped at its first violation. (Past a violation, --keep-going says
    # so whether or not the search was cut.)
    status=$(cat "$dir/a/exit")
    [[ $status == 0 || ($status == 1 && -z $keep) ]] || continue
    compare "$model" --variant "$variant" "${search[@]}" -j 2 $keep
  done
done <<<"$variants"

echo "$pairs pairs compared"
[[ $pairs -gt 0 ]] || failed=1
exit $failed
