#!/bin/sh
# Memory stays flat however long a search runs: peak RSS (GNU time's %M) of exhaustive and
# sampling searches stopped after 10^5, 10^6 and 10^7 executions. Exits 1 if the peak at the
# most executions is more than 25% above the peak at the fewest (a leak or a table that grows
# with the search). Usage: bench/memory.sh [path/to/lockcheck] [largest power of ten, 5..7]
set -eu
lockcheck=${1:-build/lockcheck}
largest=${2:-7}
status=0

# peak_kib ARGS...: the peak RSS in KiB of one run of lockcheck (its exit code is not judged:
# a search a limit stopped exits 3).
peak_kib() {
    /usr/bin/time -f '%M' -o /tmp/lockcheck-memory.$$ "$lockcheck" "$@" -q --no-timing \
        >/dev/null || true
    # GNU time writes "Command exited with non-zero status 3" first for a stopped search.
    tail -n 1 /tmp/lockcheck-memory.$$
}

printf '%-62s %12s %10s\n' search executions 'peak RSS'
for search in "rename-pin --renames 2 --fsyncs 2 --strategy dfs" \
              "rename-pin --renames 2 --fsyncs 2 --strategy dpor" \
              "tree-lock --strategy random"; do
    first=
    power=5
    while [ "$power" -le "$largest" ]; do
        n=$(awk -v p="$power" 'BEGIN { printf "%d", 10 ^ p }')
        case $search in
            *random*) kib=$(peak_kib $search --iterations "$n") ;;
            *) kib=$(peak_kib $search --max-executions "$n") ;;
        esac
        printf '%-62s %12s %7s KiB\n' "$search" "$n" "$kib"
        first=${first:-$kib}
        power=$((power + 1))
    done
    if [ "$kib" -gt $((first * 5 / 4)) ]; then
        echo "FAIL: $search: peak RSS grew from $first KiB to $kib KiB"
        status=1
    fi
done
rm -f /tmp/lockcheck-memory.$$
exit $status
