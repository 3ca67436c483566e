#!/bin/sh
# How long `lockcheck compare` takes on every model a lockcheck binary has, with no option but
# the pair: the pair the model declares, else its first two variants (a model of one variant
# has no pair). Each line: the model, the pair, compare's exit code, its wall-clock seconds,
# its strategy and its `chosen` row. A compare that has not ended within the cap (default 120
# s) is killed and shown as such. Usage: bench/compare_every_model.sh [path/to/lockcheck] [cap]
# (a user's binary built with lockcheck_add_model works too).
set -eu
lockcheck=${1:-build/lockcheck}
cap=${2:-120}

# One compare, timed: "EXIT SECONDS" on the first line, then what it printed.
timed() {
    start=$(date +%s.%N)
    code=0
    out=$(timeout "$cap" "$lockcheck" compare "$@" -q --no-timing 2>&1) || code=$?
    [ "$code" -eq 124 ] && code="killed"
    echo "$code $(echo "$(date +%s.%N) - $start" | bc)"
    printf '%s\n' "$out"
}

"$lockcheck" list --json | python3 -c '
import json, sys
for m in json.load(sys.stdin)["models"]:
    names = [v["name"] for v in m["variants"]]
    if len(names) > 1:
        print(m["name"], names[0], names[1])
' | while read -r model first second; do
    # The pair the model declares; a model that declares none refuses at once, and is given
    # its first two variants.
    pair="(declared)"
    result=$(timed "$model")
    if printf '%s\n' "$result" | grep -q "declares no before/after pair"; then
        pair="$first $second"
        result=$(timed "$model" --variant "$first" --variant "$second")
    fi
    printf '%s\n' "$result" | awk -v m="$model" -v p="$pair" '
        NR == 1 { code = $1; seconds = $2 }
        /^strategy/ { sub(/^strategy +/, ""); strategy = $0 }
        /^chosen/ { sub(/^chosen +/, ""); chosen = $0 }
        END { printf "%-20s %-46s exit %-6s %6.2f s  %s; %s\n", m, p, code, seconds, strategy, chosen }'
done
