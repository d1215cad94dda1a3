#!/bin/sh
# Writes the route cases of docs/reliability.md (limits): a cluster of N sites joined
# as a chain, a star or a full mesh, and a queue of one job per origin site, so that
# route finding can be timed without committing large files.
#   sh scripts/route-cases.sh chain|star|mesh N ORIGINS DIR
# Sites are s0..s(N-1); links are 10 Gbit/s and 1 ms. The one site with GPUs is the
# chain's last site, the star's centre s0, or the mesh's s0. The origins are the last
# ORIGINS sites (the chain's first site when ORIGINS is 1), each job moving 10 GiB.
set -eu
[ $# -eq 4 ] || { echo "usage: $0 chain|star|mesh N ORIGINS DIR" >&2; exit 2; }
kind=$1 n=$2 origins=$3 dir=$4
mkdir -p "$dir"
awk -v kind="$kind" -v n="$n" 'BEGIN {
    gpu = kind == "chain" ? n - 1 : 0
    printf "{\"scrape_interval_s\": 0, \"completion\": \"event\",\n"
    printf " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}},\n"
    printf " \"sites\": [\n"
    for (i = 0; i < n; i++) {
        nodes = i == gpu ? "{\"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": 8}" : ""
        printf "  {\"name\": \"s%d\", \"nodes\": [%s]}%s\n", i, nodes, i < n - 1 ? "," : ""
    }
    printf " ],\n \"links\": [\n"
    sep = ""
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++) {
            if (kind == "chain" && j != i + 1) break
            if (kind == "star" && i != 0) break
            printf "%s  {\"a\": \"s%d\", \"b\": \"s%d\", \"gbps\": 10, \"latency_ms\": 1}", sep, i, j
            sep = ",\n"
        }
    printf "\n ]}\n"
}' > "$dir/cluster.json"
awk -v kind="$kind" -v n="$n" -v k="$origins" 'BEGIN {
    print "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s,gpu_mem_gib"
    for (i = 0; i < k; i++) {
        o = kind == "chain" && k == 1 ? 0 : n - 1 - i
        printf "j%d,0,-,1,1,10,1,1,1,0,s%d,100,1\n", i, o
    }
}' > "$dir/jobs.csv"
