#!/bin/sh
# What a grace period costs the search: aio-lookup (an RCU lookup whose ioctx io_destroy()
# frees with call_rcu()) with 1 and 2 io_submit() readers beside the one updater, under sc and
# lkmm, by DFS, DPOR and optimal DPOR, on one thread: executions, seconds and verdict of each;
# then the same for free-at-once (no grace period), searched past its use-after-free
# (--keep-going), for what the grace period adds. A run longer than the limit is stopped (its
# verdict says incomplete). Usage:
#   bench/grace_period.sh [path/to/lockcheck] [seconds per run, default 30]
set -eu
lockcheck=${1:-build/lockcheck}
limit=${2:-30}

printf '%-13s %-10s %-5s %-13s %11s %9s  %s\n' variant submitters mm search executions seconds \
    verdict
for variant in try-get free-at-once; do
    for submitters in 1 2; do
        for mm in sc lkmm; do
            for search in dfs dpor optimal-dpor; do
                "$lockcheck" aio-lookup --variant "$variant" --submitters "$submitters" \
                    --memory-model "$mm" --strategy "$search" --keep-going --jobs 1 -q \
                    --time-limit "$limit" 2>&1 |
                    awk -v v="$variant" -v n="$submitters" -v m="$mm" -v s="$search" '
                        /^executions/ { e = $2 }
                        /^elapsed/ { t = $2 }
                        /^verdict/ { d = $2; sub(/:$/, "", d) }
                        END { printf "%-13s %-10s %-5s %-13s %11d %9.3f  %s\n", v, n, m, s, e, t, d }'
            done
        done
    done
done
