#!/usr/bin/env bash
# --jobs (issue 14): the same exhaustive search on one thread and on every core, its wall-clock
# times and their ratio, and a check that the two runs print the same summary but for the
# elapsed row. The default configuration (DPOR, the default search) takes about 10 s on one
# core of this project's machine; docs/PERFORMANCE.md also runs a DFS one.
# Usage: bench/jobs_speedup.sh [path/to/lockcheck] [MODEL AND OPTIONS...]
set -eu
lockcheck=${1:-build/lockcheck}
[ $# -gt 0 ] && shift
[ -x "$lockcheck" ] || { echo "jobs_speedup: no $lockcheck: build it first" >&2; exit 2; }
if [ $# -eq 0 ]; then
    set -- cil-push --cpus 5 --pushes 2
fi
cores=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run JOBS: the summary on JOBS threads into $work/JOBS, its elapsed seconds printed.
run() {
    local jobs=$1
    shift
    "$lockcheck" "$@" --jobs "$jobs" -q --no-minimize >"$work/$jobs" || true
    sed -n 's/^elapsed *\([0-9.]*\) s.*/\1/p' "$work/$jobs"
}
one=$(run 1 "$@")
many=$(run "$cores" "$@")
if ! diff <(grep -v '^elapsed' "$work/1") <(grep -v '^elapsed' "$work/$cores") >/dev/null 2>&1; then
    echo "jobs_speedup: the summaries on 1 and $cores threads differ" >&2
    exit 1
fi
printf 'lockcheck %s\n' "$*"
printf '%-10s %10s\n' threads seconds
printf '%-10s %10s\n' 1 "$one"
printf '%-10s %10s\n' "$cores" "$many"
awk -v a="$one" -v b="$many" 'BEGIN { printf "speedup    %10.2f\n", a / b }'
