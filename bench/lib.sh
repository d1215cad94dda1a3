# Shell helpers shared by the benchmark scripts (bench/run.sh, bench/compare.sh), which
# source this file; it defines functions and constants only.

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
