#!/bin/sh
# The benchmark runner behind `make bench` (docs/performance.md). Usage:
#   bench/run.sh BUILD_DIR
# BUILD_DIR holds cpnsim and bench/bench_engine, bench/bench_cluster and bench/gavel_gen
# built with optimisation. Runs every case, prints a table, and writes results/bench.csv
# and results/bench/scaling-*.csv (atomically: a temporary file renamed into place), then
# the log-log scaling curves (PNG and PDF, greyscale) with gnuplot into results/bench/.
#
# Each case is run BENCH_REPS times (default 5) and the median is reported; a case
# whose first run takes more than BENCH_ONE_RUN_S (default 20 s) is run once. A run
# that passes BENCH_LIMIT_S (default 45 s) is stopped (SIGTERM, which cpnsim handles)
# and reported as "over_limit" rather than hanging the bench. Two times per case:
# loop_s (wall_s in the CSV) is the simulation loop's own (summary.json's wall_s;
# bench_engine's timed loop), without loading inputs or writing outputs; proc_s
# (process_s) is the whole process as a user waits for it, from its start to its exit
# (for the gavel-N-csv cases, the import's process plus the run's). Peak RSS is the child's,
# from /usr/bin/time -f %M. Tests never call this: wall time is not something to
# assert on.
set -eu

BUILD=${1:?usage: bench/run.sh BUILD_DIR}
CPN=$BUILD/cpnsim
ENGINE=$BUILD/bench/bench_engine
CLUSTER=$BUILD/bench/bench_cluster
GAVEL_GEN=$BUILD/bench/gavel_gen
REPS=${BENCH_REPS:-5}
ONE_RUN_S=${BENCH_ONE_RUN_S:-20}
LIMIT_S=${BENCH_LIMIT_S:-45}
OUT=${BENCH_OUT:-results}
. "$(dirname "$0")/lib.sh" # now, median, json_num, cluster_gpus, cluster_file, jobs_file
SEED=1
DATA=$BUILD/bench-data
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cpnsim-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

mkdir -p "$DATA" "$OUT/bench"
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }

# One CSV row per case; the header names the units. import_s is the gavel-N-csv cases'
# import (included in process_s); peer_s the time the Gavel simulator took on such a
# trace (issue 17 quotes it; the lower end of a range).
HEADER="case,policy,jobs,gpus,events,wall_s,reps,events_per_s,jobs_per_s,peak_rss_mib,process_s,status,import_s,peer_s"
ROWS=$TMP/rows.csv
: >"$ROWS"
ROWFMT="%-22s %-8s %8s %6s %9s %10s %9s %8s %12s %10s %8s %s\n"

# kv KEY < LINE: a value from bench_engine's key=value line
kv() { tr ' ' '\n' | sed -n "s/^$1=//p"; }

# timed CMD...: runs CMD once under the time limit, its output in $TMP/out and $TMP/err,
# and sets proc (whole-process seconds) and rss (peak KiB). Returns 1 when it passed the
# limit; a failure stops the bench.
timed() {
    t0=$(now)
    set +e
    timeout -s TERM -k 5 "$LIMIT_S" /usr/bin/time -f %M -o "$TMP/rss" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    set -e
    t1=$(now)
    proc=$(echo "$t1 $t0" | awk '{printf "%.3f", $1 - $2}')
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        return 1
    fi
    if [ $rc -ne 0 ]; then
        echo "bench: failed ($rc): $*" >&2
        cat "$TMP/err" >&2
        exit 1
    fi
    rss=$(tail -n 1 "$TMP/rss")
}

# once KIND CMD...: runs one repetition, leaving wall, events, jobs, rss (KiB), process
# seconds and import seconds in $TMP/once; returns 1 when it passed the time limit.
# KIND run: a cpnsim run into $TMP/run; gavel: the same after `cpnsim import gavel
# $GAVEL_TRACE -o $TMP/gavel.csv`, timed apart (CMD reads that file); engine: a
# bench_engine case.
once() {
    kind=$1
    shift
    rm -rf "$TMP/run" "$TMP/once" "$TMP/out" "$TMP/gavel.csv"
    imp=0 imp_rss=0
    if [ "$kind" = gavel ]; then
        timed "$CPN" import gavel "$GAVEL_TRACE" -o "$TMP/gavel.csv" || return 1
        imp=$proc imp_rss=$rss
    fi
    timed "$@" || return 1
    [ "$imp_rss" -gt "$rss" ] && rss=$imp_rss
    if [ "$kind" = engine ]; then
        line=$(grep '^case=' "$TMP/out")
        wall=$(echo "$line" | kv wall_s)
        events=$(echo "$line" | kv events)
        jobs=$(echo "$line" | kv jobs)
        runs=$(echo "$line" | kv runs)
        # q100 reports the mean of many runs in one process, which then means nothing
        # as a whole process: bench/run.sh times a cpnsim run of q100 beside it.
        [ "$runs" -gt 1 ] && reps_inner=$runs
    else
        wall=$(json_num "$TMP/run/summary.json" wall_s)
        events=$(json_num "$TMP/run/summary.json" events)
        jobs=$(json_num "$TMP/run/summary.json" jobs)
    fi
    echo "$wall $events $jobs $rss $proc $imp" | awk '{printf "%s %s %s %s %.3f %.3f\n", $1, $2, $3, $4, $5 + $6, $6}' \
        >"$TMP/once"
}

# measure CASE POLICY GPUS KIND CMD...: repetitions, medians, one row. PEER_S, when
# set, is the peer's time for the CSV.
measure() {
    name=$1 policy=$2 gpus=$3
    shift 3
    : >"$TMP/reps"
    status=ok
    reps_inner=
    i=0
    while [ $i -lt "$REPS" ]; do
        if ! once "$@"; then
            status=over_limit
            break
        fi
        cat "$TMP/once" >>"$TMP/reps"
        i=$((i + 1))
        w=$(cut -d' ' -f5 "$TMP/once")
        if [ $i -eq 1 ] && awk -v w="$w" -v l="$ONE_RUN_S" 'BEGIN {exit !(w > l)}'; then
            break
        fi
    done
    if [ "$status" = over_limit ] && [ $i -eq 0 ]; then
        row="$name,$policy,${JOBS_HINT:-},$gpus,,>$LIMIT_S,0,,,,>$LIMIT_S,over_limit,,${PEER_S:-}"
    else
        wall=$(cut -d' ' -f1 "$TMP/reps" | median)
        events=$(head -n 1 "$TMP/reps" | cut -d' ' -f2)
        jobs=$(head -n 1 "$TMP/reps" | cut -d' ' -f3)
        rss=$(cut -d' ' -f4 "$TMP/reps" | sort -g | tail -n 1)
        proc=$(cut -d' ' -f5 "$TMP/reps" | median)
        imp=$(cut -d' ' -f6 "$TMP/reps" | median)
        reps=$i
        [ -n "$reps_inner" ] && reps="$i x $reps_inner" proc=
        [ "$1" = gavel ] || imp=
        row=$(awk -v c="$name" -v p="$policy" -v j="$jobs" -v g="$gpus" -v e="$events" -v w="$wall" \
                  -v r="$reps" -v m="$rss" -v pr="$proc" -v s="$status" -v im="$imp" -v pe="${PEER_S:-}" 'BEGIN {
            printf "%s,%s,%s,%s,%s,%.6f,%s,%.0f,%.0f,%.1f,%s,%s,%s,%s", c, p, j, g, e, w, r,
                   e / w, (j > 0 ? j / w : 0), m / 1024, (pr == "" ? "" : sprintf("%.3f", pr)), s,
                   (im == "" ? "" : sprintf("%.3f", im)), pe }')
    fi
    echo "$row" >>"$ROWS"
    echo "$row" | awk -F, -v f="$ROWFMT" '{printf f, $1, $2, $3, $4, $5, $6, ($11 == "" ? "-" : $11), $7, $8, $9, $10, $12}'
}

# sim CASE POLICY N GPUS: a generated queue on the benchmark cluster.
sim() {
    JOBS_HINT=$3
    measure "$1" "$2" "$4" run "$CPN" run --cluster "$(cluster_file "$4")" --jobs "$(jobs_file "$3" "$4")" \
        --policy "$2" --seed $SEED --quiet --out "$TMP/run"
    JOBS_HINT=
}

printf "$ROWFMT" case policy jobs gpus events loop_s proc_s reps events/s jobs/s rss_MiB status
echo "== the engine alone against a bare binary heap (proc_s: the bench_engine process, its input drawn)"
ENGINE_JOBS=1000000
measure engine noop 1024 engine "$ENGINE" engine $ENGINE_JOBS
engine_events=$(tail -n 1 "$ROWS" | cut -d, -f5)
measure heap-push-pop - - engine "$ENGINE" heap "$engine_events"
measure eq-push-pop - - engine "$ENGINE" eq "$engine_events"
measure heap-hold-256 - - engine "$ENGINE" hold "$engine_events" 256
# The engine's speed as a fraction of the held heap's, on the same number of events:
# the heap's time over the engine's, for the loops and for the whole processes.
awk -F, '$1 == "engine" {el = $6; ep = $11} $1 == "heap-hold-256" {hl = $6; hp = $11}
    END {if (el > 0 && ep > 0 && hl > 0 && hp > 0)
        printf "engine / heap held at 256, events per second: loop %.3f, whole process %.3f\n", hl / el, hp / ep}' "$ROWS"

echo "== q100 on the default cluster, each policy: in-process (loop_s: one run, the mean of many), then cpnsim run"
q100_gpus=$(cluster_gpus traces/default-cluster.json)
for p in $("$CPN" policies | awk '/^[^ ]/ {print $1}'); do
    measure q100 "$p" "$q100_gpus" engine "$ENGINE" q100 "$p" 1
    # `cpnsim run` with no --cluster and --jobs: the embedded default cluster and q100;
    # the oracle, as bench_engine's q100 runs, so that both rows time the same schedule.
    measure q100-run "$p" "$q100_gpus" run "$CPN" run --policy "$p" --predictor oracle --seed $SEED --quiet \
        --out "$TMP/run"
done

echo "== generated jobs on 10,000 GPUs in 8 sites"
for n in 100000 1000000; do
    for p in fifo default optimal; do
        sim "gen-$n" "$p" "$n" 10000
    done
done

echo "== Gavel-format traces on Gavel's 36 V100 + 36 P100 + 36 K80, fifo (proc_s: the whole process)"
GAVEL_CLUSTER=bench/gavel-cluster.json
gavel_gpus=$(cluster_gpus $GAVEL_CLUSTER)
# Gavel's own simulator on such traces, as issue 17 quotes it: 3.5 s for 500 jobs, 25 s
# for 5,000, 255-271 s for 50,000 (the lower end is taken, the ratio the smaller).
# gavel-N: one process, `cpnsim run --jobs gavel:TRACE` (the import in memory);
# gavel-N-csv: `cpnsim import gavel TRACE -o jobs.csv`, then `cpnsim run` on the CSV.
for np in 500:3.5 5000:25 50000:255; do
    n=${np%%:*} PEER_S=${np#*:}
    GAVEL_TRACE=$DATA/gavel-$n.trace
    if [ ! -s "$GAVEL_TRACE" ]; then
        "$GAVEL_GEN" "$n" $SEED >"$GAVEL_TRACE.tmp.$$"
        mv "$GAVEL_TRACE.tmp.$$" "$GAVEL_TRACE"
    fi
    JOBS_HINT=$n
    measure "gavel-$n" fifo "$gavel_gpus" run "$CPN" run --cluster $GAVEL_CLUSTER \
        --jobs "gavel:$GAVEL_TRACE" --policy fifo --seed $SEED --quiet --out "$TMP/run"
    # Every generated line must have become a job: a skipped one would flatter the time.
    got=$(tail -n 1 "$ROWS" | cut -d, -f3)
    [ "$got" = "$n" ] || { echo "bench: gavel-$n: the import gave $got jobs, not $n" >&2; exit 1; }
    measure "gavel-$n-csv" fifo "$gavel_gpus" gavel "$CPN" run --cluster $GAVEL_CLUSTER \
        --jobs "$TMP/gavel.csv" --policy fifo --seed $SEED --quiet --out "$TMP/run"
    JOBS_HINT= PEER_S=
done
# The two-process run's share is the median sum less the median import.
awk -F, '$1 ~ /^gavel-/ && $12 == "ok" {
    if ($1 ~ /-csv$/)
        printf "%-16s import %7.3f s + run %7.3f s = %7.3f s", $1, $13, $11 - $13, $11
    else
        printf "%-16s one process                  = %7.3f s", $1, $11
    printf "; Gavel %6s s: %5.0fx faster\n", ($1 ~ /^gavel-50000/ ? "255-271" : $14), $14 / $11 }' "$ROWS"

echo "== the Philly import on its own machine list; default also with GPU requests (gpu_as_resource)"
PHILLY=$DATA/philly.csv
[ -s "$PHILLY" ] || "$CPN" import philly traces/philly/philly_jobs_pollux.csv --max-gpus 8 -o "$PHILLY" >/dev/null
PHILLY_CLUSTER=traces/philly/philly-cluster.json
philly_gpus=$(cluster_gpus $PHILLY_CLUSTER)
JOBS_HINT=$(($(wc -l <"$PHILLY") - 1))
for p in fifo default optimal; do
    measure philly "$p" "$philly_gpus" run "$CPN" run --cluster $PHILLY_CLUSTER --jobs "$PHILLY" \
        --policy "$p" --seed $SEED --quiet --out "$TMP/run"
done
measure philly-gpu-req default "$philly_gpus" run "$CPN" run --cluster $PHILLY_CLUSTER --jobs "$PHILLY" \
    --policy default --set gpu_as_resource=true --seed $SEED --quiet --out "$TMP/run"
JOBS_HINT=

echo "== scaling: jobs at 10,000 GPUs; GPUs at 30,000 jobs; fifo, default and optimal"
for p in fifo default optimal; do
    for n in 10000 30000 300000; do
        sim "scale-jobs" "$p" "$n" 10000
    done
    for g in 1000 3000 10000 30000; do
        sim "scale-gpus" "$p" 30000 "$g"
    done
done

# The table, atomically.
{ echo "$HEADER"; cat "$ROWS"; } >"$OUT/bench.csv.tmp.$$"
mv "$OUT/bench.csv.tmp.$$" "$OUT/bench.csv"

# Scaling series per policy: x, wall_s (rows over the limit left out). The 100k and 1M
# rows of the main table are points of the job curve too.
series() {
    awk -F, -v sel="$1" -v p="$2" '$2 == p && $12 == "ok" &&
        ((sel == "jobs" && $4 == 10000 && ($1 == "scale-jobs" || $1 ~ /^gen-/)) ||
         (sel == "gpus" && $1 == "scale-gpus")) {print $3, $4, $6}' "$ROWS" |
        awk -v sel="$1" '{print (sel == "jobs" ? $1 : $2), $3}' | sort -g -u -k1,1 \
        >"$OUT/bench/scaling-$1-$2.dat.tmp.$$"
    mv "$OUT/bench/scaling-$1-$2.dat.tmp.$$" "$OUT/bench/scaling-$1-$2.dat"
}
# slope FILE: least squares of log10(wall) on log10(x): the exponent b of wall ~ x^b.
slope() {
    awk '{x = log($1) / log(10); y = log($2) / log(10); n++; sx += x; sy += y; sxx += x * x; sxy += x * y}
         END {if (n < 2) {print "nan nan"; exit} b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
              printf "%.3f %.4f\n", b, (sy - b * sx) / n}' "$1"
}
echo "== scaling exponents (wall ~ x^b, least squares on log-log)"
for s in jobs gpus; do
    # One figure per axis: a series and its fitted line per policy with two points or more.
    gp=$TMP/scaling-$s.gp
    : >"$gp.plot"
    ls=1
    for p in fifo default optimal; do
        series "$s" "$p"
        dat=$OUT/bench/scaling-$s-$p.dat
        set -- $(slope "$dat")
        b=$1 a=$2
        echo "$s, $p: b = $b ($(wc -l <"$dat") points, $dat)"
        if [ "$b" != nan ]; then
            printf "'%s' using 1:2 with points ls %d notitle, 10**(%s) * x**(%s) with lines ls %d notitle, keyentry with linespoints ls %d title '%s: wall ∝ x^%s', " \
                "$dat" $ls "$a" "$b" $ls $ls "$p" "$(printf %.2f "$b")" >>"$gp.plot"
        fi
        ls=$((ls + 1))
    done
    [ -s "$gp.plot" ] || continue
    if [ "$s" = jobs ]; then
        xl='jobs (fixed 10,000 GPUs, 8 sites)'
    else
        xl='GPUs (30,000 jobs, arrival rate ∝ GPUs)'
    fi
    { cat bench/scaling.gp; printf 'plot %s\n' "$(sed 's/, $//' "$gp.plot")"; } >"$gp"
    for fmt in png pdf; do
        gnuplot -e "fmt='$fmt'; out='$OUT/bench/scaling-$s.$fmt.tmp'; wcm=12; hcm=8; xl='$xl'" \
            scripts/plot/common.gp "$gp"
        mv "$OUT/bench/scaling-$s.$fmt.tmp" "$OUT/bench/scaling-$s.$fmt"
    done
done
echo "results: $OUT/bench.csv, $OUT/bench/ (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
