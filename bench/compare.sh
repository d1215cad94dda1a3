#!/bin/sh
# Compares two builds of cpnsim on the same cases in one run, so that a refactor can
# show it is no slower (docs/performance.md). Usage:
#   bench/compare.sh OLD_CPNSIM NEW_CPNSIM [BENCH_CLUSTER]
# BENCH_CLUSTER is bench/bench_cluster of either build (default build/bench/bench_cluster,
# which `make bench` builds). Each case runs COMPARE_REPS times (default 5), the two
# builds alternating, so that a noisy machine slows both alike. Prints, per case and
# build, the median loop time (summary.json's wall_s) and the median whole-process time
# (reading, simulating and writing, as a user waits for it), and new/old ratios. The
# outputs of the two builds are also compared byte for byte (summary.json less its two
# wall-clock fields), and a difference is reported. It never fails on time.
set -eu
OLD=${1:?usage: bench/compare.sh OLD_CPNSIM NEW_CPNSIM [BENCH_CLUSTER]}
NEW=${2:?usage: bench/compare.sh OLD_CPNSIM NEW_CPNSIM [BENCH_CLUSTER]}
CLUSTER=${3:-build/bench/bench_cluster}
REPS=${COMPARE_REPS:-5}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cpnsim-compare.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

. "$(dirname "$0")/lib.sh" # now, median, json_num, RATE_PER_GPU
pinned() { grep -v -e '"wall_s":' -e '"events_per_s":' "$1/summary.json"; cat "$1/jobs.csv" "$1/timeline.csv"; }

# Inputs: the 8-site benchmark cluster of 10,000 GPUs and Poisson queues at
# RATE_PER_GPU, as bench/run.sh draws them; the Philly import.
"$CLUSTER" 10000 8 > "$TMP/c10k.json"
rate=$(awk -v r="$RATE_PER_GPU" 'BEGIN {print 10000 * r}')
"$NEW" gen --count 100000 --seed 1 --arrival "poisson:$rate" --cluster "$TMP/c10k.json" -o "$TMP/j100k.csv"
"$NEW" gen --count 1000000 --seed 1 --arrival "poisson:$rate" --cluster "$TMP/c10k.json" -o "$TMP/j1m.csv"
"$NEW" import philly traces/philly/philly_jobs_pollux.csv --max-gpus 8 -o "$TMP/philly.csv" 2>/dev/null

printf "%-16s %-8s %10s %10s %7s %10s %10s %7s %s\n" case policy old_loop new_loop ratio old_proc new_proc ratio same
# cmp_case NAME POLICY ARGS...: runs both builds REPS times, alternating.
cmp_case() {
    name=$1 pol=$2
    shift 2
    : > "$TMP/old.loop"; : > "$TMP/new.loop"; : > "$TMP/old.proc"; : > "$TMP/new.proc"
    r=0
    while [ $r -lt "$REPS" ]; do
        for b in old new; do
            bin=$OLD
            [ $b = new ] && bin=$NEW
            rm -rf "$TMP/$b"
            t0=$(now)
            "$bin" run "$@" --policy "$pol" --quiet --out "$TMP/$b"
            t1=$(now)
            echo "$t1 $t0" | awk '{print $1 - $2}' >> "$TMP/$b.proc"
            json_num "$TMP/$b/summary.json" wall_s >> "$TMP/$b.loop"
        done
        r=$((r + 1))
    done
    same=yes
    [ "$(pinned "$TMP/old" | sha256sum)" = "$(pinned "$TMP/new" | sha256sum)" ] || same=NO
    ol=$(median < "$TMP/old.loop"); nl=$(median < "$TMP/new.loop")
    op=$(median < "$TMP/old.proc"); np=$(median < "$TMP/new.proc")
    printf "%-16s %-8s %10.4f %10.4f %7.3f %10.3f %10.3f %7.3f %s\n" "$name" "$pol" "$ol" "$nl" \
        "$(echo "$nl $ol" | awk '{print ($2 > 0 ? $1 / $2 : 0)}')" "$op" "$np" \
        "$(echo "$np $op" | awk '{print ($2 > 0 ? $1 / $2 : 0)}')" "$same"
}
for p in fifo default optimal sjf easy; do
    cmp_case q100 "$p" --jobs traces/q100.csv
done
for p in fifo default optimal; do
    cmp_case gen-100k "$p" --cluster "$TMP/c10k.json" --jobs "$TMP/j100k.csv"
done
cmp_case gen-1M fifo --cluster "$TMP/c10k.json" --jobs "$TMP/j1m.csv"
cmp_case gen-1M optimal --cluster "$TMP/c10k.json" --jobs "$TMP/j1m.csv"
for p in fifo optimal; do
    cmp_case philly "$p" --cluster traces/philly/philly-cluster.json --jobs "$TMP/philly.csv"
done
