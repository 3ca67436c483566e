#!/bin/sh
# Instructions per raw switch, per scheduling step and per rename-pin search step, counted by
# callgrind: each figure is the difference of two runs of different sizes, so start-up and
# set-up cancel out. Unlike timings it repeats exactly, so it is the baseline to diff against.
# Usage: bench/callgrind_baseline.sh [path/to/lockcheck-bench]   (needs valgrind and jq)
# Option lists are kept in one string each and split into words on purpose.
# shellcheck disable=SC2086
set -eu
bench=${1:-build/lockcheck-bench}

# Instructions the whole benchmark executes under callgrind with these options.
instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bench" "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

# per KIND UNITS SMALL LARGE: instructions per unit, where the LARGE options run UNITS more
# units than the SMALL ones.
per() {
    kind=$1 units=$2
    shift 2
    small=$(instructions $1)
    large=$(instructions $2)
    awk -v k="$kind" -v d=$((large - small)) -v u="$units" \
        'BEGIN { printf "%s: %.1f instructions\n", k, d / u }'
}

# --reps 1 times two runs (the warm-up and the timed one) of each size.
per "raw switch" $((2 * 1000000)) "--only switch --reps 1 --switches 1000000" \
    "--only switch --reps 1 --switches 2000000"
for shape in same-task switching; do
    step="--only step --tasks 2 --step-shapes $shape --reps 1"
    per "scheduling step (2 tasks, $shape)" $((2 * 100000)) \
        "$step --steps 100000" "$step --steps 200000"
done
# Searches have no warm-up: two more runs of the 1x1 searches of both verified variants.
search="--only search --sizes 1x1 --search-budget 1e9"
steps=$("$bench" $search --reps 1 --json 2>/dev/null | jq '[.searches[].steps] | add')
per "rename-pin 1x1 search step" $((2 * steps)) "$search --reps 1" "$search --reps 3"
