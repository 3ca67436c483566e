#!/usr/bin/env bash
# --shard under an existing engine: GNU parallel runs four shards of a search as jobs of its
# own, `lockcheck merge` combines their reports, and the result must be the search run whole:
# the same output, exit code and JSON report (but for the command line it records).
# Usage: shards_parallel.sh LOCKCHECK_BINARY
set -uo pipefail
binary=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0

for variant in atomic no-pin; do
  args=(rename-pin --variant "$variant" --strategy dfs --no-timing -q)
  "$binary" "${args[@]}" --json "$dir/whole.json" >"$dir/whole.out"
  whole=$?
  # A shard that finds a violation exits 1: parallel's own exit code counts those.
  parallel --will-cite "$binary" "${args[@]}" --shard {}/4 --json "$dir/{}.json" \
    ">$dir/{}.out" ::: 1 2 3 4
  "$binary" merge --no-timing --json "$dir/merged.json" "$dir"/{1,2,3,4}.json >"$dir/merged.out"
  merged=$?
  if [ "$whole" != "$merged" ]; then
    echo "FAIL: $variant: the search exits $whole, the merged shards $merged"
    failed=1
  fi
  if ! cmp -s "$dir/whole.out" "$dir/merged.out"; then
    echo "FAIL: $variant: the merged shards print otherwise than the search:"
    diff "$dir/whole.out" "$dir/merged.out" | head -20
    failed=1
  fi
  if ! diff <(grep -v '"command":' "$dir/whole.json") \
    <(grep -v '"command":' "$dir/merged.json") >/dev/null; then
    echo "FAIL: $variant: the merged report differs from the search's"
    failed=1
  fi
done
[ $failed = 0 ] && echo "4 shards under GNU parallel, merged: the same as the search, 2 variants"
exit $failed
