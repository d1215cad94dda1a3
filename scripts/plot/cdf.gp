# cdf.gp: empirical CDFs of job completion time, one line per series, in panels side
# by side. Data: one block per (panel, series), block (p-1)*nseries + s-1; rows x, F(x)
# sorted, to be drawn as steps. An empty block (no completed job) draws nothing.
# In: data, npanel, nseries, series (names, one word each), xlabel, title,
#     ptitle1..ptitleN per panel.
set key bottom right width -1
set yrange [0 : 1]
set xrange [0 : *]
set ytics 0.2
set ylabel 'fraction of completed jobs'
set xlabel xlabel
if (npanel > 1) { set multiplot layout 1, npanel title title } else { set title title }
do for [p = 1 : npanel] {
    if (npanel > 1) { set title value(sprintf('ptitle%d', p)) }
    if (p > 1) { unset key; set ylabel '' }
    plot for [i = 1 : nseries] data index ((p - 1) * nseries + i - 1) \
        using 1:2 with steps ls style(i) title word(series, i)
}
if (npanel > 1) { unset multiplot }
