#!/bin/sh
# The classic DPOR benchmarks (examples/: indexer, filesystem, lastzero) at the papers' sizes
# and beyond: for each search, its executions, the sleep-blocked ones among them and seconds,
# beside the number of Mazurkiewicz traces (what an optimal search runs; "-" where none is
# published: see docs/dpor.md, "Classic benchmarks"). A run stopped by the time limit shows
# "+" after its executions.
# Usage: bench/classic_benchmarks.sh [path/to/lockcheck] [strategies] [limit]
#   strategies: a space-separated list of --strategy values, default "dfs dpor" (add
#   optimal-dpor where the build has it); limit: each run's --time-limit, default 60s.
# Figures are worth recording from a Release build (cmake -DCMAKE_BUILD_TYPE=Release).
set -eu
lockcheck=${1:-build/lockcheck}
strategies=${2:-dfs dpor}
limit=${3:-60s}

# executions sleep-blocked seconds verdict-word of one run
run() {
    "$lockcheck" "$@" --time-limit "$limit" | awk '
        /^executions/ {e = $2} /^sleep-blocked/ {b = $2} /^elapsed/ {t = $2} /^verdict/ {v = $2}
        END {print e, (b == "" ? "-" : b), t, v}' || true
}

printf '%-32s %8s %-13s %12s %14s %9s\n' benchmark traces strategy executions sleep-blocked \
    seconds
# model, its size (lastzero: --writers, the others: --threads), the published number of
# traces ("-": none published), further options
while read -r model size traces options; do
    option=threads
    [ "$model" = lastzero ] && option=writers
    for search in $strategies; do
        # $options is a list of options, and run's output four words: split on purpose.
        # shellcheck disable=SC2046,SC2086
        set -- $(run "$model" --"$option" "$size" --strategy "$search" $options)
        stopped=
        if [ "$4" = incomplete: ]; then stopped=+; fi
        printf '%-32s %8s %-13s %12s %14s %9s\n' "$model($size) $options" "$traces" "$search" \
            "$1$stopped" "$2" "$3"
    done
done <<'SIZES'
lastzero 4 28
lastzero 5 64
lastzero 6 144
lastzero 8 704
lastzero 10 3328
lastzero 12 15360
filesystem 13 -
filesystem 14 2
filesystem 16 8
filesystem 18 32
filesystem 19 -
filesystem 22 -
indexer 11 1
indexer 12 8
indexer 13 64
indexer 14 512
indexer 15 4096
indexer 16 32768
indexer 12 8 --variant mutex-cas
indexer 13 64 --variant mutex-cas
indexer 14 512 --variant mutex-cas
indexer 15 4096 --variant mutex-cas
SIZES
