#!/bin/sh
# The largest single run that fits in a memory budget (docs/performance.md, "A single
# run's limits"). Usage:
#   bench/largest.sh BUILD_DIR
# Runs fifo on generated queues (bench/run.sh's: Poisson at RATE_PER_GPU, seed 1) on
# the 8-site benchmark cluster of 10,000 GPUs, the whole run (reading, simulating,
# writing), at LARGEST_START jobs (default 1,000,000), then twice as many, and so on.
# After each run it fits peak RSS = a + b x jobs (least squares over the runs so far;
# through the origin after one run) and never starts a size the fit puts above the
# budget, LARGEST_BUDGET_GIB (default 8), nor one above LARGEST_MAX_JOBS (default no
# bound). It then runs the largest size the fit puts within the budget (rounded down
# to 100,000 jobs), when LARGEST_VERIFY is 1 (the default) and that size is above
# LARGEST_MAX_JOBS no more, and prints for each run the jobs, GPUs, peak RSS, MiB per
# million jobs and whole-process time, and the fit. Writes results/bench/largest.csv
# (atomically). Not part of `make bench` unless BENCH_LARGEST=1: at 8 GiB a run takes
# minutes and a queue file of gigabytes. Queues beyond bench-data's are drawn into a
# temporary directory and removed at the end.
set -eu

BUILD=${1:?usage: bench/largest.sh BUILD_DIR}
CPN=$BUILD/cpnsim
CLUSTER=$BUILD/bench/bench_cluster
START=${LARGEST_START:-1000000}
BUDGET_GIB=${LARGEST_BUDGET_GIB:-8}
MAX_JOBS=${LARGEST_MAX_JOBS:-0}
VERIFY=${LARGEST_VERIFY:-1}
OUT=${BENCH_OUT:-results}
GPUS=10000
SEED=1
. "$(dirname "$0")/lib.sh" # now, cluster_file, jobs_file, RATE_PER_GPU
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cpnsim-largest.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
mkdir -p "$OUT/bench"
[ -x /usr/bin/time ] || { echo "largest: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
budget_mib=$(awk -v g="$BUDGET_GIB" 'BEGIN {print g * 1024}')

# run_size N: one fifo run of N jobs; appends "N GPUS RSS_MIB SECONDS" to $TMP/points.
run_size() {
    DATA=$BUILD/bench-data
    [ -s "$DATA/jobs-$1-g$GPUS.csv" ] || DATA=$TMP
    jobs=$(jobs_file "$1" $GPUS)
    rm -rf "$TMP/run"
    t0=$(now)
    /usr/bin/time -f %M -o "$TMP/rss" "$CPN" run --cluster "$(cluster_file $GPUS)" --jobs "$jobs" \
        --policy fifo --seed $SEED --quiet --out "$TMP/run"
    t1=$(now)
    rm -rf "$TMP/run"
    [ "$DATA" = "$TMP" ] && rm -f "$jobs"
    awk -v n="$1" -v g=$GPUS -v k="$(tail -n 1 "$TMP/rss")" -v t0="$t0" -v t1="$t1" \
        'BEGIN {printf "%d %d %.1f %.3f\n", n, g, k / 1024, t1 - t0}' >>"$TMP/points"
    tail -n 1 "$TMP/points" | awk '{printf "%10d %6d %12.1f %14.1f %10.3f\n", $1, $2, $3, $3 / ($1 / 1e6), $4}'
}

# fit: "a b" of peak RSS (MiB) = a + b x jobs, least squares over $TMP/points (a = 0
# with one point).
fit() {
    awk '{n++; sx += $1; sy += $3; sxx += $1 * $1; sxy += $1 * $3}
         END {if (n == 1) {printf "0 %.9g\n", sy / sx; exit}
              b = (n * sxy - sx * sy) / (n * sxx - sx * sx); printf "%.9g %.9g\n", (sy - b * sx) / n, b}' "$TMP/points"
}

: >"$TMP/points"
printf "%10s %6s %12s %14s %10s\n" jobs gpus peak_rss_MiB MiB_per_1M_jobs process_s
n=$START
while [ "$MAX_JOBS" -eq 0 ] || [ "$n" -le "$MAX_JOBS" ]; do
    if [ -s "$TMP/points" ]; then
        set -- $(fit)
        awk -v a="$1" -v b="$2" -v n="$n" -v m="$budget_mib" 'BEGIN {exit !(a + b * n > m)}' && break
    fi
    run_size "$n"
    n=$((n * 2))
done
set -- $(fit)
a=$1 b=$2
best=$(awk -v a="$a" -v b="$b" -v m="$budget_mib" 'BEGIN {printf "%d", int((m - a) / b / 100000) * 100000}')
last=$(tail -n 1 "$TMP/points" | cut -d' ' -f1)
if [ "$VERIFY" = 1 ] && [ "$best" -gt "$last" ] && { [ "$MAX_JOBS" -eq 0 ] || [ "$best" -le "$MAX_JOBS" ]; }; then
    run_size "$best"
fi
awk -v a="$a" -v b="$b" -v best="$best" -v g="$BUDGET_GIB" 'BEGIN {
    printf "fit: peak RSS = %.0f MiB + %.1f MiB per million jobs\n", a, b * 1e6
    printf "largest fifo run of the benchmark queue on 10,000 GPUs within %s GiB: %d jobs\n", g, best }'
{
    echo "jobs,gpus,peak_rss_mib,mib_per_million_jobs,process_s"
    awk '{printf "%d,%d,%.1f,%.1f,%.3f\n", $1, $2, $3, $3 / ($1 / 1e6), $4}' "$TMP/points"
} >"$OUT/bench/largest.csv.tmp.$$"
mv "$OUT/bench/largest.csv.tmp.$$" "$OUT/bench/largest.csv"
echo "results: $OUT/bench/largest.csv"
