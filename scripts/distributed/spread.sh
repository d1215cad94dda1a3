#!/bin/sh
# The cost of spreading a distributed job (docs/distributed.md): each model's job of two
# pods of 4 H100s (one epoch over 10 GiB) runs alone, under the ideal controller, on one
# 8-GPU node, on two 4-GPU nodes of one site (net_gbps 100) and on two 4-GPU nodes in two
# sites joined by a 10-Gbit/s, 30-ms link. Prints the run time (start to end) of each,
# and its ratio to the run on one node. Usage: sh scripts/distributed/spread.sh [CPNSIM]
set -eu
bin=${1:-build/cpnsim}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
head='"scrape_interval_s": 0, "completion": "event",
  "gpu_types": {"H100": {"mem_gib": 80, "profile": "h100"}}'
node='"cpus": 112, "mem_gib": 2048, "gpu_type": "H100"'
cat >"$t/node.json" <<J
{ $head, "sites": [{"name": "a", "nodes": [{"count": 1, $node, "gpus": 8}]}] }
J
cat >"$t/site.json" <<J
{ $head, "sites": [{"name": "a", "net_gbps": 100, "nodes": [{"count": 2, $node, "gpus": 4}]}] }
J
cat >"$t/wan.json" <<J
{ $head, "sites": [{"name": "a", "nodes": [{"count": 1, $node, "gpus": 4}]},
                  {"name": "b", "nodes": [{"count": 1, $node, "gpus": 4}]}],
  "links": [{"a": "a", "b": "b", "gbps": 10, "latency_ms": 30}] }
J
printf 'model,params_m,batch,one_node_s,two_nodes_s,ratio,two_sites_s,ratio\n'
for m in "resnet50 64 25.6" "bert_base 32 110" "llama_1b 1 1100"; do
    set -- $m
    printf 'id,submit_s,model,batch,epochs,data_gib,gpus,pods,cpus,mem_gib,image_gib,origin\n' >"$t/j.csv"
    printf 'j,0,%s,%s,1,10,4,2,16,64,1,a\n' "$1" "$2" >>"$t/j.csv"
    for c in node site wan; do
        "$bin" run --quiet --jobs "$t/j.csv" --cluster "$t/$c.json" --policy fifo --out "$t/$c"
        awk -F, 'NR == 2 { printf "%.3f\n", $11 - $10 }' "$t/$c/jobs.csv" >"$t/$c.s"
    done
    awk -v m="$1" -v p="$3" -v b="$2" -v n="$(cat "$t/node.s")" -v s="$(cat "$t/site.s")" \
        -v w="$(cat "$t/wan.s")" \
        'BEGIN { printf "%s,%s,%s,%.1f,%.1f,%.2f,%.1f,%.2f\n", m, p, b, n, s, s / n, w, w / n }'
done
