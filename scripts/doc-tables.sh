#!/bin/sh
# The tables of README.md and docs/*.md that come from runs, made again from those runs.
# Each such table follows a marker line
#
#   <!-- table NAME: sh scripts/doc-tables.sh show NAME -->
#
# and this script knows how to make NAME from the commands the text beside the table
# shows (runs, sweeps of the specs in scripts/, `cpnsim predict --eval`).
#
#   sh scripts/doc-tables.sh check [CPNSIM]      exit 0 when every marked table matches, 1 and a diff otherwise
#   sh scripts/doc-tables.sh update [CPNSIM]     rewrites the marked tables in place
#   sh scripts/doc-tables.sh show NAME [CPNSIM]  prints one table
#   sh scripts/doc-tables.sh list                the tables' names and files
#
# CPNSIM defaults to build/cpnsim. Run from the repository root. Every table here is
# simulated, so it is exact and the same on every machine; the timings of
# docs/performance.md and the README's Performance section are measured, not made here.
set -eu
mode=${1:-check}
case "$mode" in
check | update | list) bin=${2:-build/cpnsim} ;;
show)
    [ $# -ge 2 ] || { echo "usage: doc-tables.sh show NAME [CPNSIM]" >&2; exit 2; }
    bin=${3:-build/cpnsim}
    ;;
*) echo "usage: doc-tables.sh check|update|list [CPNSIM] | show NAME [CPNSIM]" >&2; exit 2 ;;
esac
DOCS="README.md docs/catalogue.md docs/cluster.md docs/cpu.md docs/distributed.md docs/import.md docs/jobs.md docs/performance.md docs/policies.md docs/predictor.md docs/reliability.md docs/sweeps.md docs/figures.md"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cpn_tables.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# Number formats shared by every table: grp(x, d) rounds to d decimals with thousands
# separators and a typographic minus; sgn(x, d) adds a + to positive values; ci(m, lo,
# hi, d) is "m [lo, hi]" and sci() the same signed.
AWKLIB='
function grp(x, d,   s, neg, i, ip, fr, out) {
    s = sprintf("%." d "f", x)
    neg = substr(s, 1, 1) == "-"
    if (neg) s = substr(s, 2)
    i = index(s, ".")
    if (i) { ip = substr(s, 1, i - 1); fr = substr(s, i) } else { ip = s; fr = "" }
    out = ""
    while (length(ip) > 3) { out = "," substr(ip, length(ip) - 2) out; ip = substr(ip, 1, length(ip) - 3) }
    return (neg ? "−" : "") ip out fr
}
function sgn(x, d,   s) { s = grp(x, d); return index(s, "−") == 1 ? s : "+" s }
function ci(m, lo, hi, d) { return grp(m, d) " [" grp(lo, d) ", " grp(hi, d) "]" }
function sci(m, lo, hi, d) { return sgn(m, d) " [" sgn(lo, d) ", " sgn(hi, d) "]" }
'

# jv FILE KEY: a number of a summary.json (as cJSON prints it: tab, key, colon, tab).
jv() { awk -F'\t' -v k="\"$2\":" '$2 == k { v = $3; sub(/,$/, "", v); print v; exit }' "$1"; }

# run NAME ARGS...: one run into $tmp/NAME (once per invocation of this script).
run() {
    run_dir=$tmp/$1 # sh has no locals: no name a caller uses
    shift
    [ -f "$run_dir/summary.json" ] || "$bin" run "$@" --out "$run_dir" --quiet
}

# sweep SPEC: the spec's sweep into $tmp/sweep-SPEC (once).
sweep() {
    [ -f "$tmp/sweep-$1/summary.csv" ] ||
        "$bin" sweep "scripts/$1.json" -j 2 --out "$tmp/sweep-$1" > /dev/null 2> "$tmp/sweep-$1.log" ||
        { cat "$tmp/sweep-$1.log" >&2; exit 1; }
}

# mean CSV KEYS METRIC: the mean of a metric in a sweep's summary.csv, for the group
# whose grid-key cells (all but the last six columns) join with commas to KEYS.
mean() {
    awk -F, -v g="$2" -v m="$3" 'NR > 1 {
        k = $1; for (i = 2; i <= NF - 6; i++) k = k "," $i
        if (k == g && $(NF - 5) == m) { print $(NF - 3); exit } }' "$1"
}

# ---- README.md ----

# What the network costs: FIFO on the queues of seeds 1-20 at four link scales.
t_network() {
    sweep network
    for s in 1 0.5 0.25 0.1; do
        f=$tmp/sweep-network/summary.csv
        printf '%s %s %s %s %s\n' "$s" "$(mean "$f" "$s" transfer_mean_s)" "$(mean "$f" "$s" jct_mean_s)" \
            "$(mean "$f" "$s" wait_mean_s)" "$(mean "$f" "$s" makespan_s)"
    done | awk "$AWKLIB"'
        BEGIN { print "| link bandwidth | mean transfer (s) | mean JCT (s) | mean wait (s) | makespan (s) |"
                print "|---|---:|---:|---:|---:|" }
        { l = $1 == 1 ? "10 Gbit/s (as given)" : "× " $1
          print "| " l " | " grp($2, 1) " | " grp($3, 0) " | " grp($4, 0) " | " grp($5, 0) " |" }'
}

# Distributed jobs: the runs of scripts/distributed.json and distributed-gang.json (20
# queues a point), per policy and controller, at each share of distributed jobs: with
# gang_timeout_s 0, the runs that deadlocked and the mean stuck jobs; with 1800, the
# mean timed-out attempts a run (and any deadlock).
dist_rows() {
    sweep distributed
    sweep distributed-gang
    for f in "$tmp/sweep-distributed/runs.csv" "$tmp/sweep-distributed-gang/runs.csv"; do
        awk -F, -v t="$1" -v gang="$(case $f in *gang*) echo 1 ;; *) echo 0 ;; esac)" '
            { gsub(/"[^"]*"/, "q") } # the quoted run names hold commas
            NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            $c["gang_timeout_s"] == t {
                p = gang ? "default, gang_scheduling" : $c["policy"]
                ctl = $c["cluster"] ~ /ideal/ ? "ideal" : "stale"
                sh = $c["mix"]; sub(/.*\/d/, "", sh); sub(/\.json$/, "", sh)
                k = p SUBSEP ctl SUBSEP sh
                n[k]++; d[k] += $c["deadlock"] == "true"; st[k] += $c["stuck"]; to[k] += $c["gang_timeouts"]
                if (!(p SUBSEP ctl in seen)) { seen[p SUBSEP ctl] = 1; order[++m] = p SUBSEP ctl }
            }
            END {
                for (i = 1; i <= m; i++) {
                    split(order[i], pc, SUBSEP); line = pc[1] "\t" pc[2]
                    for (j = 1; j <= 4; j++) {
                        sh = j == 1 ? 0 : j == 2 ? 10 : j == 3 ? 25 : 50; k = order[i] SUBSEP sh
                        line = line "\t" n[k] " " d[k] " " st[k] / n[k] " " to[k] / n[k]
                    }
                    print line
                }
            }' "$f"
    done
}
t_distributed_deadlocks() {
    dist_rows 0 | awk -F'\t' "$AWKLIB"'
        BEGIN { print "| policy | controller | 0% | 10% | 25% | 50% |"; print "|---|---|---:|---:|---:|---:|" }
        { line = "| " $1 " | " $2 " |"
          for (i = 3; i <= 6; i++) { split($i, v, " "); line = line " " v[2] "/" v[1] (v[2] ? " (" grp(v[3], 1) ")" : "") " |" }
          print line }'
}
t_distributed_timeouts() {
    dist_rows 1800 | awk -F'\t' "$AWKLIB"'
        BEGIN { print "| policy | controller | 0% | 10% | 25% | 50% |"; print "|---|---|---:|---:|---:|---:|" }
        { line = "| " $1 " | " $2 " |"
          for (i = 3; i <= 6; i++) { split($i, v, " "); line = line " " grp(v[4], 1) (v[2] ? ", " v[2] " deadlocked" : "") " |" }
          print line }'
}

# summary row of one run: OOM kills, jobs killed, failed, makespan, mean and p95 JCT.
row_fifo() {
    f=$tmp/$1/summary.json
    printf '%s\t%s\t%s %s %s %s %s %s\n' "$2" "$3" "$(jv "$f" oom_events)" "$(jv "$f" oom_jobs)" \
        "$(jv "$f" failed)" "$(jv "$f" makespan_s)" "$(jv "$f" jct_mean_s)" "$(jv "$f" jct_p95_s)"
}

# The FIFO experiment: q40 and q100 under four controllers.
t_fifo_controller() {
    for q in q40 q100; do
        run "$q-stale" --jobs "traces/$q.csv"
        run "$q-event" --jobs "traces/$q.csv" --set completion=event
        run "$q-live" --jobs "traces/$q.csv" --set scrape_interval_s=0
        run "$q-ideal" --jobs "traces/$q.csv" --set scrape_interval_s=0 --set completion=event
        row_fifo "$q-stale" "$q" "stale (scrape 60 s, poll 60 s)"
        row_fifo "$q-event" "$q" "scrape 60 s, completion event"
        row_fifo "$q-live" "$q" "live metrics, poll 60 s"
        row_fifo "$q-ideal" "$q" "ideal (live, event)"
    done | awk -F'\t' "$AWKLIB"'
        BEGIN { print "| queue | controller | OOM kills | jobs killed | failed | makespan (s) | mean JCT (s) | p95 JCT (s) |"
                print "|---|---|---:|---:|---:|---:|---:|---:|" }
        { split($3, v, " ")
          print "| " $1 " | " $2 " | " v[1] " | " v[2] " | " v[3] " | " grp(v[4], 0) " | " grp(v[5], 0) " | " grp(v[6], 0) " |" }'
}

# same A B: whether two runs gave the same summary, less the wall-clock fields.
same() {
    grep -v '"wall_s"\|"events_per_s"\|"overrides"\|"cpu_threshold=' "$tmp/$1/summary.json" > "$tmp/same.a"
    grep -v '"wall_s"\|"events_per_s"\|"overrides"\|"cpu_threshold=' "$tmp/$2/summary.json" > "$tmp/same.b"
    cmp -s "$tmp/same.a" "$tmp/same.b"
}

row_policy() {
    f=$tmp/$1/summary.json
    dl=no
    [ "$(jv "$f" deadlock)" = true ] && dl=yes
    printf '%s\t%s\t%s %s %s %s %s %s %s %s\n' "$2" "$3" "$(jv "$f" makespan_s)" "$(jv "$f" jct_mean_s)" \
        "$(jv "$f" jct_p95_s)" "$(jv "$f" oom_events)" "$(jv "$f" failed)" "$dl" "$(jv "$f" cpu_lost_gpu_s)" \
        "$(jv "$f" jct_all_mean_s)"
}

# policy_rows PREDICTOR: every policy on q40 and q100 with that predictor (optimal at
# thresholds 0.7, 0.8 and 0.9, in one row where they give the same run), and, when the
# predictor is not the oracle, optimal with the oracle too.
policy_rows() {
    P=$1
    for q in q40 q100; do
        J="--jobs traces/$q.csv --predictor $P"
        run "$q-$P-fifo" $J
        run "$q-$P-default" $J --policy default
        run "$q-$P-default-gpu" $J --policy default --set gpu_as_resource=true
        run "$q-$P-optimal" $J --policy optimal
        run "$q-$P-optimal-0.8" $J --policy optimal --cpu-threshold 0.8
        run "$q-$P-optimal-0.9" $J --policy optimal --cpu-threshold 0.9
        run "$q-$P-sjf" $J --policy sjf
        run "$q-$P-easy" $J --policy easy
        row_policy "$q-$P-fifo" "$q" fifo
        row_policy "$q-$P-default" "$q" default
        row_policy "$q-$P-default-gpu" "$q" "default, gpu_as_resource=true"
        o=$q-$P-optimal
        if same "$o" "$o-0.8" && same "$o" "$o-0.9"; then
            row_policy "$o" "$q" "optimal (threshold 0.7, 0.8 or 0.9: identical)"
        elif same "$o" "$o-0.8"; then
            row_policy "$o" "$q" "optimal (threshold 0.7 or 0.8: identical)"
            row_policy "$o-0.9" "$q" "optimal, threshold 0.9"
        else
            row_policy "$o" "$q" "optimal (threshold 0.7)"
            row_policy "$o-0.8" "$q" "optimal, threshold 0.8"
            row_policy "$o-0.9" "$q" "optimal, threshold 0.9"
        fi
        if [ "$P" != oracle ]; then
            run "$q-$P-optimal-oracle" --jobs "traces/$q.csv" --policy optimal --predictor oracle
            row_policy "$q-$P-optimal-oracle" "$q" "optimal, --predictor oracle"
        fi
        row_policy "$q-$P-sjf" "$q" sjf
        row_policy "$q-$P-easy" "$q" easy
    done | awk -F'\t' "$AWKLIB"'
        BEGIN { print "| queue | policy | makespan (s) | mean JCT (s) | p95 JCT (s) | mean JCT, all jobs (s) | OOM kills | failed | deadlock | CPU-starved GPU-s |"
                print "|---|---|---:|---:|---:|---:|---:|---:|---|---:|" }
        { split($3, v, " ")
          print "| " $1 " | " $2 " | " grp(v[1], 0) " | " grp(v[2], 0) " | " grp(v[3], 0) " | " grp(v[8], 0) " | " v[4] " | " v[5] " | " v[6] " | " grp(v[7], 0) " |" }'
}

# The policies compared (README, with the default rf; docs/policies.md, with the oracle).
t_policies() { policy_rows rf; }
t_policies_oracle() { policy_rows oracle; }

# The CPU-threshold ablation of one policy: paired ratios (baseline.csv) and means
# (summary.csv) of scripts/threshold-ablation.json.
t_threshold() {
    sweep threshold-ablation
    d=$tmp/sweep-threshold-ablation
    awk -F, -v p="$1" "$AWKLIB"'
        FNR == 1 { file++; next }
        file == 1 && $1 == p { b[$2, $3] = ci($7, $9, $10, 3); bd[$2, $3] = sci($7, $9, $10, 2)
                               if ($3 == "cpu_lost_gpu_s") bd[$2, $3] = sci($7 / 3600, $9 / 3600, $10 / 3600, 2) }
        file == 2 && $1 == p && $3 == "cpu_lost_gpu_s" { h[$2] = ci($5 / 3600, $7 / 3600, $8 / 3600, 2) }
        file == 2 && $1 == p && $3 == "oom_events" { o[$2] = $5 == 0 ? "0" : grp($5, 1) }
        END {
            print "| threshold | makespan ÷ 0.7'"'"'s | mean JCT ÷ 0.7'"'"'s | GPU utilisation ÷ 0.7'"'"'s | CPU-starved GPU-h | − 0.7'"'"'s | OOM kills |"
            print "|---|---:|---:|---:|---:|---:|---:|"
            n = split("0.5 0.6 0.7 0.8 0.9 1 never", t, " ")
            for (i = 1; i <= n; i++) {
                x = t[i]
                if (x == "0.7")
                    print "| 0.7 | 1 | 1 | 1 | " h[x] " | 0 | " o[x] " |"
                else
                    print "| " (x == "1" ? "1.0" : x) " | " b[x, "makespan_s"] " | " b[x, "jct_mean_s"] " | " b[x, "gpu_util_mean"] " | " h[x] " | " bd[x, "cpu_lost_gpu_s"] " | " o[x] " |"
            }
        }' "$d/baseline.csv" "$d/summary.csv"
}
t_threshold_fifo() { t_threshold fifo; }
t_threshold_optimal() { t_threshold optimal; }

# The same ablation with cpu_cost_scale 3, both policies in one table.
t_threshold_cost3() {
    sweep threshold-ablation-cost3
    d=$tmp/sweep-threshold-ablation-cost3
    awk -F, "$AWKLIB"'
        FNR == 1 { file++; next }
        file == 1 { b[$1, $2, $3] = ci($7, $9, $10, 3) }
        file == 2 && $3 == "cpu_lost_gpu_s" { h[$1, $2] = grp($5 / 3600, 2) }
        END {
            print "| threshold | fifo makespan ÷ 0.7'"'"'s | fifo mean JCT ÷ 0.7'"'"'s | fifo CPU-starved GPU-h | optimal makespan ÷ 0.7'"'"'s | optimal mean JCT ÷ 0.7'"'"'s | optimal CPU-starved GPU-h |"
            print "|---|---:|---:|---:|---:|---:|---:|"
            n = split("0.5 0.6 0.7 0.8 0.9 1 never", t, " ")
            for (i = 1; i <= n; i++) {
                x = t[i]; line = "| " (x == "1" ? "1.0" : x)
                for (j = 1; j <= 2; j++) {
                    p = j == 1 ? "fifo" : "optimal"
                    if (x == "0.7") line = line " | 1 | 1"
                    else line = line " | " b[p, x, "makespan_s"] " | " b[p, x, "jct_mean_s"]
                    line = line " | " h[p, x]
                }
                print line " |"
            }
        }' "$d/baseline.csv" "$d/summary.csv"
}

# The predictor's cross-validation: `cpnsim predict --eval`, less the folds, counts and
# the share predicted low.
t_predict_eval() {
    [ -f "$tmp/eval.txt" ] || "$bin" predict --eval > "$tmp/eval.txt" 2>&1
    awk -F' \\| ' '
        /^\| method \| held out \| folds/ { on = 1
            print "| method | held out | step MAPE | step P90 | mem MAPE | mem P90 |"
            print "|---|---|---:|---:|---:|---:|"; next }
        on && /^\|---/ { next }
        on && /^\|/ { sub(/^\| /, "", $1); sub(/ \|$/, "", $12); h = $2; sub(/the simulator.s truth/, "truth", h)
                      print "| " $1 " | " h " | " $5 " | " $6 " | " $10 " | " $11 " |"; next }
        on { exit }' "$tmp/eval.txt"
}

# docs/predictor.md, "What learning does": scripts/learning.json, means over the ten
# queues (summary.csv) and the ratios to learning off, paired per queue (baseline.csv).
t_learning() {
    sweep learning
    d=$tmp/sweep-learning
    awk -F, "$AWKLIB"'
        FNR == 1 { file++; next }
        file == 1 { b[$1, $2, $3] = ci($7, $9, $10, 2) }
        file == 2 { m[$1, $2, $3] = $5 }
        END {
            print "| predictor | learn | factor, first tenth | factor, last tenth | factor, median | makespan (s) | mean JCT (s) | OOM kills | makespan ÷ off | mean JCT ÷ off |"
            print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
            split("rf rf:unseen=resnet18+bert_base+densenet121", p, " ")
            for (i = 1; i <= 2; i++)
                for (j = 1; j <= 2; j++) {
                    P = p[i]; L = j == 1 ? "true" : "false"
                    o = m[P, L, "oom_events"]
                    line = "| `" (i == 1 ? "rf" : "rf:unseen=…") "` | " (j == 1 ? "on" : "off")
                    line = line " | " grp(m[P, L, "pred_factor_first_tenth"], 2) " | " grp(m[P, L, "pred_factor_last_tenth"], 2)
                    line = line " | " grp(m[P, L, "pred_factor_median"], 2) " | " grp(m[P, L, "makespan_s"], 0)
                    line = line " | " grp(m[P, L, "jct_mean_s"], 0) " | " (o == 0 ? "0" : grp(o, 1))
                    if (j == 1) line = line " | " b[P, L, "makespan_s"] " | " b[P, L, "jct_mean_s"] " |"
                    else line = line " | | |"
                    print line
                }
        }' "$d/baseline.csv" "$d/summary.csv"
}

# docs/predictor.md, the memory margin in simulation: scripts/predictor-margins.json,
# OOM kills, jobs killed and failed summed over the ten queues, and makespan and mean JCT
# averaged over the runs that did not deadlock (runs.csv).
t_predictor_margins() {
    sweep predictor-margins
    # The run name is the one quoted cell with commas before the columns read here.
    sed 's/^\([0-9]*\),"[^"]*",/\1,NAME,/' "$tmp/sweep-predictor-margins/runs.csv" > "$tmp/sweep-predictor-margins/runs.csv.plain"
    awk -F, "$AWKLIB"'
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { p = $c["predictor"]; if (!(p in seen)) { seen[p] = 1; order[++n] = p }
          oom[p] += $c["oom_events"]; killed[p] += $c["oom_jobs"]; failed[p] += $c["failed"]
          if ($c["deadlock"] == "true") dl[p]++
          else { k[p]++; mk[p] += $c["makespan_s"]; jct[p] += $c["jct_mean_s"] } }
        END {
            print "| predictor | OOM kills | jobs killed | jobs failed | deadlocked runs | mean makespan (s) | mean JCT (s) |"
            print "|---|---:|---:|---:|---:|---:|---:|"
            for (i = 1; i <= n; i++) {
                p = order[i]; l = "`" p "`"
                if (p == "rf") l = "`rf` (+50%)"
                if (p == "nn") l = "`nn` (+10%)"
                if (p == "linear") l = "`linear` (+50%)"
                print "| " l " | " oom[p] " | " killed[p] " | " failed[p] " | " dl[p] + 0 " | " grp(mk[p] / k[p], 0) " | " grp(jct[p] / k[p], 0) " |"
            }
        }' "$tmp/sweep-predictor-margins/runs.csv.plain"
}

# docs/predictor.md: the two tables of `cpnsim predict --eval` as it prints them.
eval_table() {
    [ -f "$tmp/eval.txt" ] || "$bin" predict --eval > "$tmp/eval.txt" 2>&1
    awk -v h="$1" 'index($0, h) == 1 { on = 1 } on && /^\|/ { print; next } on { exit }' "$tmp/eval.txt"
}
t_predict_eval_full() { eval_table "| method | held out | folds"; }
t_predict_eval_margin() { eval_table "| method | held out | +0%"; }

# The README's worked example: the default run's summary.json (abridged), and the first
# lines of its jobs.csv and timeline.csv.
t_default_summary() {
    run default
    awk -F'\t' '
        BEGIN { n = split("policy seed jobs completed failed oom_events oom_jobs deadlock makespan_s " \
                          "jct_mean_s jct_p95_s jct_all_mean_s not_completed wait_mean_s gpu_util_mean " \
                          "cpu_util_mean cpu_lost_gpu_s cpu_slowed_jobs pred_factor_median " \
                          "pred_factor_first_tenth pred_factor_last_tenth transfer_gib transfer_mean_s " \
                          "cache_hit_rate", k, " ")
                for (i = 1; i <= n; i++) want["\"" k[i] "\":"] = 1; print "{" }
        $2 in want { print }
        END { print "\t..."; print "}" }' "$tmp/default/summary.json"
}
# docs/distributed.md: the cost of spreading a job over nodes and sites.
t_spread() {
    sh scripts/distributed/spread.sh "$bin" | awk -F, '
        NR == 1 { print "| model | parameters (M) | batch | one node | two nodes | × | two sites | × |"
                  print "|---|---:|---:|---:|---:|---:|---:|---:|"; next }
        { printf "|"; for (i = 1; i <= NF; i++) printf " %s |", $i; printf "\n" }'
}
t_default_jobs() { run default; head -n 3 "$tmp/default/jobs.csv"; }
t_default_timeline() { run default; head -n 2 "$tmp/default/timeline.csv"; }

# ---- the machinery ----

# tables: "NAME FILE" for every marker in the docs.
tables() {
    for f in $DOCS; do
        [ -f "$f" ] || continue
        sed -n 's/^<!-- table \([a-z0-9_-]*\): .*-->$/\1/p' "$f" | while read -r n; do echo "$n $f"; done
    done
}

show() {
    fn=t_$(echo "$1" | tr - _)
    if ! command -v "$fn" > /dev/null 2>&1; then
        echo "doc-tables: no table named $1" >&2
        exit 2
    fi
    "$fn"
}

# doc_table FILE NAME: the table that follows NAME's marker in FILE, or the lines of
# the fenced block (```) that follows it.
doc_table() {
    awk -v n="$2" '
        index($0, "<!-- table " n ": ") == 1 { on = 1; next }
        on && !seen && /^```/ { inb = 1; seen = 1; next }
        inb && /^```/ { exit }
        inb { print; next }
        on && /^\|/ { print; seen = 1; next }
        on && seen { exit }
        on && /^$/ { next }' "$1"
}

case "$mode" in
list) tables ;;
show) show "$2" ;;
check | update)
    status=0
    tables > "$tmp/list"
    [ -s "$tmp/list" ] || { echo "doc-tables: no marked table found" >&2; exit 1; }
    while read -r name file; do
        show "$name" > "$tmp/want"
        doc_table "$file" "$name" > "$tmp/have"
        if cmp -s "$tmp/want" "$tmp/have"; then
            continue
        fi
        if [ "$mode" = check ]; then
            echo "doc-tables: $file: table $name differs from what its commands give (- in the doc, + made now):" >&2
            diff "$tmp/have" "$tmp/want" >&2 || true
            status=1
        else
            awk -v n="$name" -v want="$tmp/want" '
                function put() { while ((getline l < want) > 0) print l; done = 1 }
                index($0, "<!-- table " n ": ") == 1 { print; on = 1; next }
                on && !done && !inb && /^```/ { print; inb = 1; put(); next }
                inb && /^```/ { print; inb = 0; on = 0; next }
                inb { next }
                on && /^\|/ { if (!done) put(); next }
                on && done { on = 0 }
                { print }' "$file" > "$tmp/new"
            cat "$tmp/new" > "$file"
            echo "doc-tables: $file: table $name rewritten" >&2
        fi
    done < "$tmp/list"
    [ "$status" = 0 ] && [ "$mode" = check ] && echo "doc-tables: $(wc -l < "$tmp/list") tables match"
    exit $status
    ;;
esac
