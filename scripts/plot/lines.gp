# lines.gp: metrics against a swept parameter, one line per series with 95%
# confidence intervals as error bars, in a grid of panels of equal size filled row by
# row (panel p in data block p-1). A row per x value: its tick label, its x position,
# then for each series the mean, the interval's low and high.
# In: data, npanel, nrow, ncol, nseries, sname1..snameN, nokey (1: a single unnamed
#     series, no key), xlabel, title,
#     per panel p: ylabelP and ptitleP (a title above it, or ''), xlabP (1: this
#     panel is the lowest of its column and shows the x label and tick labels),
#     ymaxP and ystepP (the y axis's top and tick step);
#     xtics and xticsbare ('"label" x, ...' and '"" x, ...': the only ticks), xmin
#     and xmax (the x range, padded so that end points and their error bars show),
#     topcm and botcm (room above the panels for the key and the panel titles, and
#     below them for the x axis).
grow = nrow; gcol = ncol; gl = (ycm + 0.4) / wcm; gr = 0.97; hg = 1.4 / wcm; vg = 0.55 / hcm
gb = botcm / hcm; gt = 1 - (tcm + topcm + kcm) / hcm
set mxtics 1
set multiplot title title
do for [p = 1 : npanel] {
    @panel
    set xrange [xmin : xmax]
    set ylabel value(sprintf('ylabel%d', p))
    xl = value(sprintf('xlab%d', p))
    set xlabel (xl ? xlabel : '')
    eval 'set xtics (' . (xl ? xtics : xticsbare) . ')'
    set yrange [0 : value(sprintf('ymax%d', p))]
    set ytics 0, value(sprintf('ystep%d', p))
    set format y '%g'
    unset label 1
    if (p <= ncol) {
        set label 1 value(sprintf('ptitle%d', p)) at graph 0.5, graph 1.08 center
    }
    # The error bars solid (a dash pattern would break them up), the lines dashed.
    plot for [i = 1 : nseries] data index (p - 1) \
        using 2:(column(3 * i)):(column(3 * i + 1)):(column(3 * i + 2)) \
        with yerrorbars ls style(i) dt 1 pt -1 notitle, \
        for [i = 1 : nseries] data index (p - 1) using 2:(column(3 * i)) \
        with linespoints ls style(i) notitle
}
if (!nokey) {
    @keyplot
    plot for [i = 1 : nseries] NaN with linespoints ls style(i) \
        title value(sprintf('sname%d', i))
}
unset multiplot
