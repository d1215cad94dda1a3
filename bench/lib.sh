# Shell helpers shared by the benchmark scripts (bench/run.sh, bench/compare.sh), which
# source this file; it defines functions and constants only. cluster_file and jobs_file
# use the caller's CPN, CLUSTER, DATA and SEED.

# Poisson arrivals per second per GPU of the generated benchmark queues: 10 jobs/s on
# 10,000 GPUs. FIFO's head-of-line blocking then keeps a queue from early on, so the
# cluster never runs dry.
RATE_PER_GPU=0.001

# now: wall-clock seconds, with nanoseconds
now() { date +%s.%N; }

# median of the numbers on standard input ("nan" for none)
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# json_num FILE KEY: a number from cpnsim's summary.json
json_num() { sed -n "s/^[[:space:]]*\"$2\":[[:space:]]*\([-0-9.eE+]*\),\{0,1\}\$/\1/p" "$1" | head -n 1; }

# cluster_gpus FILE: the GPUs of a cluster file, each node entry's gpus times its count
# (1 when absent); the count comes before the gpus in an entry, as cpnsim writes them.
cluster_gpus() {
    grep -o '"\(count\|gpus\)":[[:space:]]*[0-9]*' "$1" |
        awk -F':[[:space:]]*' '$1 ~ /count/ {c = $2; next} {s += (c == "" ? 1 : c) * $2; c = ""} END {print s}'
}

# cluster_file GPUS: the 8-site benchmark cluster (bench/bench_cluster), in $DATA,
# written by $CLUSTER the first time.
cluster_file() {
    f=$DATA/cluster-$1.json
    if [ ! -s "$f" ]; then
        "$CLUSTER" "$1" 8 >"$f.tmp.$$"
        mv "$f.tmp.$$" "$f"
    fi
    echo "$f"
}

# jobs_file N GPUS: N Poisson jobs at RATE_PER_GPU x GPUS per second (seed $SEED), in
# $DATA, drawn by $CPN gen the first time.
jobs_file() {
    f=$DATA/jobs-$1-g$2.csv
    if [ ! -s "$f" ]; then
        rate=$(awk -v g="$2" -v r="$RATE_PER_GPU" 'BEGIN {print g * r}')
        "$CPN" gen --count "$1" --seed $SEED --arrival "poisson:$rate" --cluster "$(cluster_file "$2")" -o "$f"
    fi
    echo "$f"
}
