# cdf.gp: the fraction of ALL jobs completed by each time, one line per series, in a
# grid of panels (ncol to a row, filled row by row). A series whose jobs partly fail
# or never finish levels off below 1, at the fraction that completed. Data: one block
# per (panel, series), block (p-1)*nseries + s-1; rows x, F(x) sorted, drawn as steps.
# An empty block (no completed job) draws nothing.
# In: data, npanel, ncol, nseries, sname1..snameN, xlabel, xmax and xstep (the x
#     axis's end and tick step), title, topcm and botcm
#     (room above the panels for the key, and below for the x axis), ptitle1..ptitleN
#     per panel ('' for none).
nrow = int((npanel + ncol - 1) / ncol)
grow = nrow; gcol = ncol; gl = (ycm + 0.6) / wcm; gr = 0.97; hg = 0.9 / wcm; vg = 1.9 / hcm
gb = botcm / hcm; gt = 1 - (tcm + topcm + kcm) / hcm
set yrange [0 : 1.0001]
set ytics 0, 0.25, 1
set format y '%g'
set multiplot title title
do for [p = 1 : npanel] {
    @panel
    # One x scale for every panel, so that panels compare.
    set xrange [0 : xmax]
    set xtics 0, xstep
    unset label 1
    set label 1 value(sprintf('ptitle%d', p)) at graph 0.5, graph 1.1 center
    # The axis labels once: y on the first column, x on the last row.
    # On two lines: on one, it is longer than a panel is high.
    set ylabel ((p - 1) % ncol == 0 ? "fraction of\nall jobs completed" : '')
    set xlabel (p > npanel - ncol && (ncol <= 2 || p == npanel) ? xlabel : '')
    plot for [i = 1 : nseries] data index ((p - 1) * nseries + i - 1) \
        using 1:2 with steps ls style(i) notitle
}
@keyplot
plot for [i = 1 : nseries] NaN with lines ls style(i) title value(sprintf('sname%d', i))
unset multiplot
