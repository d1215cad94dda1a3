#!/bin/sh
# Runs libFuzzer harnesses for a fixed time each, a few at once, and prints one line
# per harness: executions, executions per second, corpus size, coverage. Called by
# `make fuzz` (docs/reliability.md):
#
#     sh tests/fuzz/run.sh BUILD SECONDS JOBS HARNESS...
#
# Each harness starts from its seeds (tests/fuzz/corpus/HARNESS, read only) and from
# what earlier runs in this build directory found (BUILD/corpus/HARNESS, where new
# inputs go). Its log is BUILD/logs/HARNESS.log. A crash, a leak, a hang of one input
# (over 10 s), an allocation over the memory limit or a broken property stops the
# harness, leaves the input in BUILD/crashes/ and makes this script exit 1.
set -eu

if [ "${1:-}" = "--one" ]; then
    # One harness: BUILD SECONDS NAME. Writes BUILD/logs/NAME.result.
    build=$2 secs=$3 name=$4
    seeds="tests/fuzz/corpus/$name"
    work="$build/corpus/$name"
    log="$build/logs/$name.log"
    mkdir -p "$work" "$build/crashes" "$build/logs"
    [ -d "$seeds" ] || seeds=""
    dict=""
    [ -f "tests/fuzz/$name.dict" ] && dict="-dict=tests/fuzz/$name.dict"
    status=0
    # shellcheck disable=SC2086
    ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:symbolize=1" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
        "$build/$name" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$build/crashes/$name-" $dict \
        "$work" $seeds >"$log" 2>&1 || status=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | sed 's/cov: //')
    corp=$(find "$work" -type f | wc -l | tr -d ' ')
    echo "$status ${execs:-0} ${cov:-0} $corp" >"$build/logs/$name.result"
    exit 0
fi

[ $# -ge 4 ] || { echo "usage: $0 BUILD SECONDS JOBS HARNESS..." >&2; exit 2; }
build=$1 secs=$2 jobs=$3
shift 3
mkdir -p "$build/logs"
for name in "$@"; do rm -f "$build/logs/$name.result"; done
echo "fuzz: $# harnesses, $secs s each, $jobs at a time (logs in $build/logs/)"
start=$(date +%s)
printf '%s\n' "$@" | xargs -P "$jobs" -I{} sh "$0" --one "$build" "$secs" {}
failed=0
total=0
for name in "$@"; do
    r="$build/logs/$name.result"
    if [ ! -f "$r" ]; then
        echo "fuzz: $name: no result (see $build/logs/$name.log)"
        failed=$((failed + 1))
        continue
    fi
    read -r status execs cov corp <"$r"
    total=$((total + execs))
    if [ "$status" -eq 0 ]; then
        printf 'fuzz: %-28s %10s executions (%s/s), corpus %s, coverage %s: ok\n' \
            "$name" "$execs" "$((execs / (secs > 0 ? secs : 1)))" "$corp" "$cov"
    else
        failed=$((failed + 1))
        printf 'fuzz: %-28s %10s executions: FAILED (exit %s)\n' "$name" "$execs" "$status"
        grep -a -E 'ERROR|SUMMARY|property failed|Test unit written|artifact_prefix' \
            "$build/logs/$name.log" | head -n 12 | sed 's/^/    /'
    fi
done
echo "fuzz: $total executions in $(($(date +%s) - start)) s; $failed of $# harnesses failed"
[ "$failed" -eq 0 ]
