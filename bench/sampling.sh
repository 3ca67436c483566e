#!/bin/sh
# Executions random walks and PCT need to find each broken shipped variant's violation: for
# seeds 1..N (default 100), the execution at which the first violation came, with its mean
# and worst over the seeds (a seed that found nothing within the cap counts as the cap, and is
# counted). Usage: bench/sampling.sh [path/to/lockcheck] [seeds] [cap]
set -eu
lockcheck=${1:-build/lockcheck}
seeds=${2:-100}
cap=${3:-100000}

printf '%-15s %-23s %-7s %10s %10s %8s\n' model variant search mean worst missed
"$lockcheck" list | awk '$3 ~ /^violation/ || $4 ~ /^violation/ {print $1, $2}' |
    while read -r model variant; do
        for search in random pct; do
            seed=1
            while [ "$seed" -le "$seeds" ]; do
                # --no-minimize: only the search is measured; exit 1 is the expected find.
                "$lockcheck" "$model" --variant "$variant" --strategy "$search" --seed "$seed" \
                    --iterations "$cap" --no-minimize |
                    awk '/^executions/ {print $2} /^verdict/ {print ($2 == "VIOLATION") ? "found" : "missed"}' |
                    paste -sd' ' - || true
                seed=$((seed + 1))
            done | awk -v m="$model" -v v="$variant" -v s="$search" '
                { sum += $1; if ($1 > worst) worst = $1; if ($2 == "missed") missed++; n++ }
                END { printf "%-15s %-23s %-7s %10.1f %10d %8d\n", m, v, s, sum / n, worst, missed }'
        done
    done
