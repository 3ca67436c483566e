#!/bin/sh
# What --memory-model lkmm costs: every variant of every shipped model run with its default
# search and sizes under sc and under lkmm, on one thread: executions, seconds and verdict of
# each, and the ratio of executions; then each litmus family summed. A run longer than the time
# limit is stopped (its verdict says incomplete). Usage:
#   bench/memory_model.sh [path/to/lockcheck] [seconds per run, default 120]
set -eu
lockcheck=${1:-build/lockcheck}
limit=${2:-120}
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT

# run MODEL VARIANT MEMORY: "executions seconds verdict" of one run, the verdict as the
# summary's first word (verified, VIOLATION, incomplete), marked * when it is not the one the
# variant declares for that memory model.
run() {
    "$lockcheck" "$1" --variant "$2" --memory-model "$3" --jobs 1 --time-limit "$limit" 2>&1 |
        awk '/^executions/ { e = $2 }
             /^elapsed/ { s = $2 }
             /^expected/ { ok = / as declared/ ? "" : "*" }
             /^verdict/ { v = $2; sub(/:$/, "", v) }
             END { printf "%s %s %s%s\n", e, s, v, ok }'
}

# The models by kind: the litmus families are the models after the "litmus tests:" heading.
"$lockcheck" list | awk '/^litmus tests:/ { litmus = 1 }
    NR > 1 && NF >= 2 && $1 ~ /^[a-z][a-z0-9-]*$/ && $2 !~ /:$/ { print $1, $2, litmus ? "litmus" : "model" }' |
    while read -r model variant kind; do
        set -- $(run "$model" "$variant" sc)
        sc="$1 $2 $3"
        set -- $(run "$model" "$variant" lkmm)
        echo "$kind $model $variant $sc $1 $2 $3"
    done >"$rows"

printf '%-18s %-26s %9s %8s %10s %8s %6s  %s\n' model variant 'sc execs' 'sc s' 'lkmm execs' \
    'lkmm s' ratio 'verdict sc / lkmm (*: not as declared)'
awk '$1 == "model" { printf "%-18s %-26s %9d %8.3f %10d %8.3f %6.2f  %s / %s\n", $2, $3, $4, $5,
                            $7, $8, $4 ? $7 / $4 : 0, $6, $9 }' "$rows"
echo
printf '%-18s %6s %9s %8s %10s %8s %6s  %s\n' 'litmus family' tests 'sc execs' 'sc s' \
    'lkmm execs' 'lkmm s' ratio 'not as declared'
awk '$1 == "litmus" { n[$2]++; se[$2] += $4; ss[$2] += $5; le[$2] += $7; ls[$2] += $8
                       if ($6 ~ /\*/ || $9 ~ /\*/) bad[$2]++ }
     END { for (f in n) printf "%-18s %6d %9d %8.3f %10d %8.3f %6.2f  %d\n", f, n[f], se[f],
                                ss[f], le[f], ls[f], le[f] / se[f], bad[f] + 0 }' "$rows" | sort
