#!/bin/sh
# SPIN side by side with lockcheck (issue 14): for each scaled configuration of the four shipped
# protocols, SPIN's full search of its Promela model (bench/spin/) and lockcheck's search of the
# same protocol at the same sizes, run one after the other in the same run, and one table of
# their figures and ratios (docs/scaling.md, "Side by side with SPIN").
# Usage: bench/spin_vs_lockcheck.sh [path/to/lockcheck]
#   TIME_LIMIT=S      lockcheck's --time-limit, and SPIN's, per run (default 60)
#   LOCKCHECK_ARGS=.. more lockcheck arguments for every run (a search flag, say)
#   BROKEN=1          first check that SPIN finds each Promela model's broken variants
#   SIZES=10x         the next sizes up instead: for each configuration, the smallest found with
#                     at least about ten times its SPIN states (issue 41; docs/PERFORMANCE.md)
#   ONLY=REGEX        only the configurations whose label matches (grep -E)
set -eu
lockcheck=${1:-build/lockcheck}
limit=${TIME_LIMIT:-60}
models=$(cd "$(dirname "$0")/spin" && pwd)
lockcheck_args=${LOCKCHECK_ARGS:-}

# SPIN is Debian's `spin` package, installed as tools/setup.sh installs what it needs; CI never
# runs this script, so the package is not one of setup.sh's.
if ! command -v spin >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "spin_vs_lockcheck: installing spin" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends spin >&2
fi
[ -x "$lockcheck" ] || { echo "spin_vs_lockcheck: no $lockcheck: build it first" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# pan's compile flags: SAFETY, as every property is an assertion or an invalid end state (no
# never claim, no cycle to look for); NOFAIR, no weak-fairness machinery a safety search never
# uses; MEMLIM, so that a search that outgrows the machine stops with an error instead of
# swapping. Partial-order reduction and full state storage stay at SPIN's defaults, the hash
# table too (-w24: 128 MB allocated up front, part of every peak below).
pan_cflags="-O2 -w -DSAFETY -DNOFAIR -DMEMLIM=16384"
# pan's search depth: far beyond the deepest of these searches (about 250 steps); pan says
# "max search depth too small" otherwise, which the run reports.
pan_depth=100000

# seconds A B: the wall-clock seconds between two `date +%s.%N` readings.
seconds() {
    awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'
}

# spin_search MODEL DEFINES: compiles and runs pan in $work/MODEL; sets spin_verdict,
# spin_states, spin_transitions, spin_search_s, spin_total_s and spin_mb.
spin_search() {
    dir=$work/$1
    rm -rf "$dir" && mkdir -p "$dir"
    cp "$models/$1.pml" "$dir/"
    start=$(date +%s.%N)
    # shellcheck disable=SC2086 # the defines are words
    (cd "$dir" && spin $2 -a "$1.pml" >spin.out && gcc $pan_cflags -o pan pan.c)
    compiled=$(date +%s.%N)
    (cd "$dir" && /usr/bin/time -f '%M' -o time.out timeout "$limit" ./pan -m"$pan_depth" -n \
        >pan.out 2>&1) || true
    finished=$(date +%s.%N)
    out=$dir/pan.out
    spin_states=$(awk '/states, stored/ { print $1; exit }' "$out")
    spin_transitions=$(awk '/transitions \(= stored\+matched\)/ { print $1; exit }' "$out")
    spin_search_s=$(awk '/^pan: elapsed time/ { printf "%.2f", $4; exit }' "$out")
    spin_total_s=$(seconds "$start" "$finished")
    spin_mb=$(tail -n 1 "$dir/time.out" | awk '{ printf "%.0f", $1 / 1024 }')
    if grep -q "max search depth too small" "$out"; then
        spin_verdict="depth"
    elif [ -z "$spin_states" ]; then
        spin_verdict="timeout"
        spin_states="-" spin_transitions="-" spin_search_s=$(seconds "$compiled" "$finished")
    elif grep -q "errors: 0" "$out"; then
        spin_verdict="verified"
    else
        spin_verdict="error"
    fi
}

# lockcheck_search ARGS...: runs lockcheck; sets lc_verdict, lc_executions, lc_s and lc_mb.
lockcheck_search() {
    start=$(date +%s.%N)
    status=0
    # shellcheck disable=SC2086 # LOCKCHECK_ARGS are words
    /usr/bin/time -f '%M' -o "$work/lockcheck.time" "$lockcheck" "$@" --time-limit "${limit}s" \
        -q --no-pager $lockcheck_args >"$work/lockcheck.out" 2>&1 || status=$?
    finished=$(date +%s.%N)
    lc_s=$(seconds "$start" "$finished")
    lc_mb=$(tail -n 1 "$work/lockcheck.time" | awk '{ printf "%.0f", $1 / 1024 }')
    lc_executions=$(awk '/^executions/ { print $2; exit }' "$work/lockcheck.out")
    case $status in
        0) lc_verdict="verified" ;;
        1) lc_verdict="violation" ;;
        3) lc_verdict="incomplete" lc_executions="${lc_executions}+" ;;
        *) lc_verdict="error($status)" lc_executions="-" ;;
    esac
}

# ratio A B PREFIX: A / B to two significant places, B at least 0.01 (pan rounds its time).
ratio() {
    awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN {
        if (b < 0.01) b = 0.01
        r = a / b
        printf "%s%s", p, (r >= 10 ? sprintf("%.0f", r) : sprintf("%.2g", r))
    }'
}

if [ "${BROKEN:-0}" = 1 ]; then
    echo "SPIN on the broken variants: each must end in an error trail"
    for broken in "rename_pin -DNO_PIN" "rename_pin -DPIN_AFTER_UNLINK" \
                  "rename_pin -DUNSYNCED_LOG_EDITS" "buffered_write -DUNLOCKED" \
                  "buffered_write -DTRUNCATE_NOWAIT" "tree_lock -DSLEEP_WHILE_SPINNING" \
                  "tree_lock -DUNLOCK_NO_WAKE" "cil_push -DNO_CTX_LOCK" \
                  "cil_push -DPREEMPTIBLE_INSERT"; do
        # shellcheck disable=SC2086
        spin_search $broken
        reason=$(grep -m 1 -o -E "assertion violated.*|invalid end state" \
            "$work/${broken%% *}/pan.out" || true)
        printf '  %-34s %-8s %s\n' "$broken" "$spin_verdict" "$reason"
    done
    echo
fi

# The configurations: a label, the Promela model and its sizes, lockcheck's model and sizes.
# lockcheck runs with --depth 1000: SPIN has no depth bound, and no execution here comes near.
configs="rename-pin 2 renames, 2 fsyncs|rename_pin|-DRENAMES=2 -DFSYNCS=2|rename-pin --variant atomic --renames 2 --fsyncs 2
rename-pin 2x2 renames, 2 fsyncs|rename_pin|-DRENAMES=2 -DROUNDS=2 -DFSYNCS=2|rename-pin --variant atomic --renames 2 --rounds 2 --fsyncs 2
buffered-write 4 writers|buffered_write|-DWRITERS=4|buffered-write --variant unlocked-wait-first --writers 4
tree-lock spin-block 2 readers|tree_lock|-DREADERS=2|tree-lock --variant spin-block --readers 2
cil-push percpu 2x3 commits, 2 pushes|cil_push|-DCPUS=2 -DCOMMITS=2 -DROUNDS=3 -DPUSHES=2|cil-push --variant percpu --cpus 2 --commits 2 --rounds 3 --pushes 2
cil-push global 2x3 commits, 2 pushes|cil_push|-DGLOBAL -DCPUS=2 -DCOMMITS=2 -DROUNDS=3 -DPUSHES=2|cil-push --variant global --cpus 2 --commits 2 --rounds 3 --pushes 2"
# Ten times: SPIN's states at 9.5 to 37 times those above, in the same order (rename-pin 2x2 is
# the first one's; cil-push's is the smallest larger size found: a third CPU and commit task, two
# rounds each, where a fourth round of the two gives only 6-8 times).
if [ "${SIZES:-}" = 10x ]; then
    configs="rename-pin 2x2 renames, 2 fsyncs|rename_pin|-DRENAMES=2 -DROUNDS=2 -DFSYNCS=2|rename-pin --variant atomic --renames 2 --rounds 2 --fsyncs 2
rename-pin 2x2 renames, 3 fsyncs|rename_pin|-DRENAMES=2 -DROUNDS=2 -DFSYNCS=3|rename-pin --variant atomic --renames 2 --rounds 2 --fsyncs 3
buffered-write 5 writers|buffered_write|-DWRITERS=5|buffered-write --variant unlocked-wait-first --writers 5
tree-lock spin-block 3 readers|tree_lock|-DREADERS=3|tree-lock --variant spin-block --readers 3
cil-push percpu 3 cpus, 3x2, 2 pushes|cil_push|-DCPUS=3 -DCOMMITS=3 -DROUNDS=2 -DPUSHES=2|cil-push --variant percpu --cpus 3 --commits 3 --rounds 2 --pushes 2
cil-push global 3 cpus, 3x2, 2 pushes|cil_push|-DGLOBAL -DCPUS=3 -DCOMMITS=3 -DROUNDS=2 -DPUSHES=2|cil-push --variant global --cpus 3 --commits 3 --rounds 2 --pushes 2"
fi
if [ -n "${ONLY:-}" ]; then
    configs=$(echo "$configs" | grep -E "^[^|]*(${ONLY})")
fi

echo "SPIN $(spin -V | awk '{ print $3 }') against $lockcheck${lockcheck_args:+ $lockcheck_args}, --time-limit ${limit}s each"
row='%-37s | %9s %10s %7s %7s %5s %-8s | %11s %7s %5s %-10s | %6s %6s\n'
# shellcheck disable=SC2059 # the format is the table's
printf "$row" configuration "SPIN states" transitions search total MB verdict \
    "lc execs" seconds MB verdict "time" memory
# shellcheck disable=SC2059
printf "$row" "" "" "" s s "" "" "" s "" "" ratio ratio
echo "$configs" | while IFS='|' read -r label model defines args; do
    spin_search "$model" "$defines"
    # shellcheck disable=SC2086 # the arguments are words
    lockcheck_search $args --depth 1000
    # lockcheck's time against SPIN's search alone; a lower bound where lockcheck stopped early.
    prefix=""
    [ "$lc_verdict" = verified ] || prefix=">"
    # shellcheck disable=SC2059
    printf "$row" "$label" "$spin_states" "$spin_transitions" "$spin_search_s" "$spin_total_s" \
        "$spin_mb" "$spin_verdict" "$lc_executions" "$lc_s" "$lc_mb" "$lc_verdict" \
        "$(ratio "$lc_s" "$spin_search_s" "$prefix")" "$(ratio "$lc_mb" "$spin_mb" "")"
done
echo "time ratio: lockcheck's seconds / SPIN's search seconds (target <= 1; '>' where lockcheck's"
echo "time limit stopped it); memory ratio: lockcheck's peak RSS / pan's (target <= 1)"
