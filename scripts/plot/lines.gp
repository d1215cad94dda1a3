# lines.gp: metrics against a swept parameter, one line per series with 95%
# confidence intervals as error bars, in a grid of panels of equal size filled row by
# row (panel p in data block p-1). A row per x value: its tick label, its x position,
# then for each series the mean, the interval's low and high.
# In: data, npanel, nrow, ncol, nseries, series (names, one word each), xlabel, title,
#     per panel p: ylabelP and ptitleP (a title above it, or ''), xlabP (1: this
#     panel is the lowest of its column and shows the x label and tick labels),
#     flatP (1: every value is 0, so the y axis is fixed at [0, 1]);
#     xtics and xticsbare ('"label" x, ...' and '"" x, ...': the only ticks), xmin
#     and xmax (the x range, padded so that end points and their error bars show),
#     topcm and botcm (room above the panels for the title, the key and the panel
#     titles, and below them for the x axis).
set offsets 0, 0, graph 0.1, 0
set xrange [xmin : xmax]
set mxtics 1
# One key for all panels, in a row under the title and above the first row of panels,
# so that it never covers a line.
set key at screen 0.5, screen 1 - 0.8 / hcm center top vertical maxrows 1 width 1 samplen 2
set multiplot layout nrow, ncol title title \
    margins char 10, screen 0.97, screen botcm / hcm, screen 1 - topcm / hcm \
    spacing char 7, char 1.2
do for [p = 1 : npanel] {
    set ylabel value(sprintf('ylabel%d', p))
    xl = value(sprintf('xlab%d', p))
    set xlabel (xl ? xlabel : '')
    eval 'set xtics (' . (xl ? xtics : xticsbare) . ')'
    if (value(sprintf('flat%d', p))) { set yrange [0 : 1] } else { set yrange [0 : *] }
    # Panel titles as labels just above the panel: set title would share the top
    # margin with the key.
    unset label 1
    if (p <= ncol) {
        set label 1 value(sprintf('ptitle%d', p)) at graph 0.5, graph 1.08 center
    }
    if (p > 1) { unset key } else { set key }
    plot for [i = 1 : nseries] data index (p - 1) \
        using 2:(column(3 * i)):(column(3 * i + 1)):(column(3 * i + 2)) \
        with yerrorlines ls style(i) title word(series, i)
}
unset multiplot
