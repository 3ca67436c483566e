#!/bin/sh
# DFS against DPOR on every correct shipped variant at default sizes and depth: executions,
# steps and seconds of each, the reduction in executions, and DPOR's cost per step relative
# to DFS's (target: at most 2x). Then larger checks, to see which ones each finishes within
# --time-limit (default 10 s). Usage: bench/dpor_vs_dfs.sh [path/to/lockcheck] [limit]
# (a Release build: cmake -DCMAKE_BUILD_TYPE=Release).
set -eu
lockcheck=${1:-build/lockcheck}
limit=${2:-10s}

# executions steps seconds verdict-word of one run
run() {
    "$lockcheck" "$@" --time-limit "$limit" | awk '
        /^executions/ {e = $2} /^steps/ {s = $2} /^elapsed/ {t = $2} /^verdict/ {v = $2}
        END {print e, s, t, v}' || true
}

printf '%-15s %-22s %12s %8s %12s %8s %9s %10s\n' model variant dfs-execs dfs-s dpor-execs \
    dpor-s reduction step-cost
# The protocols only: the examples' section (classic DPOR benchmarks) has a script of its own.
"$lockcheck" list |
    awk '/^examples:/ {exit} $3 == "verified" || $4 == "verified" {print $1, $2}' |
    while read -r model variant; do
        set -- $(run "$model" --variant "$variant" --strategy dfs) \
            $(run "$model" --variant "$variant" --strategy dpor)
        awk -v m="$model" -v v="$variant" -v de="$1" -v ds="$2" -v dt="$3" -v dv="$4" \
            -v pe="$5" -v ps="$6" -v pt="$7" 'BEGIN {
            cost = (ds > 0 && ps > 0 && dt > 0) ? (pt / ps) / (dt / ds) : 0
            printf "%-15s %-22s %12s %8.3f %12s %8.3f %8.1fx %9.2fx%s\n", m, v,
                de (dv == "incomplete:" ? "+" : ""), dt, pe, pt, de / pe, cost,
                (dt < 0.05 ? "  (too fast to time)" : "")
        }'
    done

echo
echo "larger checks within $limit (+: stopped by the limit, incomplete):"
for check in "tree-lock" "cil-push --cpus 3" "cil-push --commits 3" "rename-pin --fsyncs 2"; do
    for search in dfs dpor; do
        printf '%-22s %-5s ' "$check" "$search"
        # $check is a model and its options: split on purpose.
        # shellcheck disable=SC2086
        run $check --strategy "$search" |
            awk '{printf "%12s executions %8.2f s %s\n", $1, $3, ($4 == "incomplete:") ? "+" : "done"}'
    done
done
