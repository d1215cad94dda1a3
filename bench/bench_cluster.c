/* Prints the benchmark cluster as JSON: SITES sites in a full mesh (10 or 100 Gbit/s;
 * latency 10 + 4|a-b| ms, which keeps the triangle inequality, so every route is the
 * direct link, as in a real mesh), nodes of 8 GPUs, GPUS in all, of mixed types in fixed proportions
 * (H100 25%, V100 40%, P100 25%, K80 10%), assigned round-robin by node so every
 * site gets every type. Usage: bench_cluster [GPUS] [SITES]. */
#include <stdio.h>
#include <stdlib.h>

#define NODE_GPUS 8

static const struct {
    const char *name;
    double mem_gib;
    int per_20_nodes; /* share of nodes, out of 20 */
} types[] = {{"H100-80G", 80, 5}, {"V100-32G", 32, 8}, {"P100-16G", 16, 5}, {"K80-12G", 12, 2}};

int main(int argc, char **argv)
{
    long gpus = argc > 1 ? atol(argv[1]) : 10000;
    int sites = argc > 2 ? atoi(argv[2]) : 8;
    long nodes = (gpus + NODE_GPUS - 1) / NODE_GPUS;
    printf("{\n  \"scrape_interval_s\": 60, \"poll_interval_s\": 60, \"completion\": \"poll\",\n"
           "  \"gpu_types\": {");
    for (int t = 0; t < 4; t++)
        printf("%s\"%s\": {\"mem_gib\": %g}", t ? ", " : "", types[t].name, types[t].mem_gib);
    printf("},\n  \"sites\": [\n");
    for (int s = 0; s < sites; s++) {
        long first = nodes * s / sites, last = nodes * (s + 1) / sites;
        long count[4] = {0};
        for (long k = first; k < last; k++) {
            int slot = (int)(k % 20), t = 0, acc = types[0].per_20_nodes;
            while (slot >= acc)
                acc += types[++t].per_20_nodes;
            count[t]++;
        }
        printf("    {\"name\": \"s%d\", \"cache_gib\": 2000, \"nodes\": [", s);
        int firstn = 1;
        for (int t = 0; t < 4; t++)
            if (count[t]) {
                printf("%s{\"count\": %ld, \"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"%s\", \"gpus\": %d}",
                       firstn ? "" : ", ", count[t], types[t].name, NODE_GPUS);
                firstn = 0;
            }
        printf("]}%s\n", s + 1 < sites ? "," : "");
    }
    printf("  ],\n  \"links\": [\n");
    int firstl = 1;
    for (int a = 0; a < sites; a++)
        for (int b = a + 1; b < sites; b++) {
            printf("%s    {\"a\": \"s%d\", \"b\": \"s%d\", \"gbps\": %d, \"latency_ms\": %d}", firstl ? "" : ",\n",
                   a, b, 10 + 90 * ((a + b) % 2), 10 + 4 * (b - a));
            firstl = 0;
        }
    printf("\n  ]\n}\n");
    return 0;
}
