/* The data files compiled into the binary, so that cpnsim needs no file at run time.
 * Each blob is followed by a NUL byte so it can be read as a C string. */
#define BLOB(sym, path)            \
    .global sym;                   \
    .global sym##_end;             \
    .balign 16;                    \
sym:                               \
    .incbin path;                  \
sym##_end:                         \
    .byte 0

    .section .rodata
BLOB(cpn_embed_profile_csv, "data/h100_profile.csv")
BLOB(cpn_embed_colocate_csv, "data/h100_colocate.csv")
BLOB(cpn_embed_cpu_pipeline_csv, "data/cpu_pipeline.csv")
BLOB(cpn_embed_gavel_json, "data/gavel/simulation_throughputs.json")
BLOB(cpn_embed_default_cluster, "traces/default-cluster.json")
BLOB(cpn_embed_plot_common, "scripts/plot/common.gp")
BLOB(cpn_embed_plot_bars, "scripts/plot/bars.gp")
BLOB(cpn_embed_plot_lines, "scripts/plot/lines.gp")
BLOB(cpn_embed_plot_cdf, "scripts/plot/cdf.gp")
BLOB(cpn_embed_plot_timeline, "scripts/plot/timeline.gp")
    .section .note.GNU-stack,"",@progbits
