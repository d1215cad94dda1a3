/* embed: the data files compiled into the binary (sim/base/embed.S). Each symbol pair
 * brackets the file's bytes; a NUL follows the end. */
#ifndef CPN_EMBED_H
#define CPN_EMBED_H

#include <stddef.h>

extern const char cpn_embed_profile_csv[], cpn_embed_profile_csv_end[];
extern const char cpn_embed_colocate_csv[], cpn_embed_colocate_csv_end[];
extern const char cpn_embed_cpu_pipeline_csv[], cpn_embed_cpu_pipeline_csv_end[];
extern const char cpn_embed_gavel_json[], cpn_embed_gavel_json_end[];
extern const char cpn_embed_default_cluster[], cpn_embed_default_cluster_end[];
/* The gnuplot scripts of `cpnsim plot` (scripts/plot/). */
extern const char cpn_embed_plot_common[], cpn_embed_plot_common_end[];
extern const char cpn_embed_plot_bars[], cpn_embed_plot_bars_end[];
extern const char cpn_embed_plot_lines[], cpn_embed_plot_lines_end[];
extern const char cpn_embed_plot_cdf[], cpn_embed_plot_cdf_end[];
extern const char cpn_embed_plot_timeline[], cpn_embed_plot_timeline_end[];

#define EMBED_LEN(sym) ((size_t)(sym##_end - sym))

#endif
