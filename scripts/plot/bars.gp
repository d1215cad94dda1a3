# bars.gp: clustered bars with 95% confidence intervals, in one or more panels side
# by side. Data: one block per panel (blocks separated by two blank lines); a row per
# cluster: its label, then for each series the mean, the interval's low and high ends
# (both equal to the mean when there is no interval, as with one seed).
# In: data, npanel, nseries, series (names, one word each), clusters (how many),
#     ylabel1..ylabelN and ptitle1..ptitleN per panel, xlabel, title, refline (y of a
#     dashed reference line, or NaN for none), ymax1..ymaxN (top of each panel's y
#     axis: above the highest interval and the reference line, with room for the key).
set style data histograms
set style histogram errorbars gap 1.5 lw 1
set style fill solid 1.0 border lc rgb '#000000'
set xrange [-0.5 : clusters - 0.5]
set key top left horizontal maxcols 4 width 2 samplen 2
set xlabel xlabel
if (npanel > 1) { set multiplot layout 1, npanel title title } else { set title title }
do for [p = 1 : npanel] {
    set ylabel value(sprintf('ylabel%d', p))
    set yrange [0 : value(sprintf('ymax%d', p))]
    if (npanel > 1) { set title value(sprintf('ptitle%d', p)) }
    if (refline == refline) {
        set arrow 1 from graph 0, first refline to graph 1, first refline nohead dt 2 lw 1 \
            lc rgb '#000000' back
    }
    if (p > 1) { unset key }
    plot for [i = 1 : nseries] data index (p - 1) \
        using (column(3 * i - 1)):(column(3 * i)):(column(3 * i + 1)):xtic(1) \
        title word(series, i) fc rgb fillc(i) lc rgb '#000000'
}
if (npanel > 1) { unset multiplot }
