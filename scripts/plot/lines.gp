# lines.gp: a metric against a swept parameter, one line per series with 95%
# confidence intervals as error bars, in a grid of panels (rows: metrics; columns:
# e.g. job queues). Data: one block per panel, row by row (block (r-1)*ncol + c-1);
# a row per x value: x, then for each series the mean, the interval's low and high.
# In: data, nrow, ncol, nseries, series (names, one word each), xlabel, title,
#     ylabel1..ylabelR per row, ctitle1..ctitleC per column (or '' for none), xtics
#     (the swept values, comma-separated: the only ticks), xmin and xmax (the x range,
#     padded so that end points and their error bars show).
set offsets 0, 0, graph 0.1, 0
set yrange [0 : *]
set xrange [xmin : xmax]
eval 'set xtics (' . xtics . ')'
set mxtics 1
# One key for all panels, in a row under the title and above the first row of panels
# (which leave room for it), so that it never covers a line.
set key at screen 0.5, screen 1 - 0.8 / hcm center top vertical maxrows 1 width 1 samplen 2
set lmargin 10
set multiplot layout nrow, ncol title title
do for [r = 1 : nrow] {
    do for [c = 1 : ncol] {
        set ylabel (c == 1 ? value(sprintf('ylabel%d', r)) : '')
        set xlabel (r == nrow ? xlabel : '')
        # Column titles as labels just above the panel: set title would share the
        # top margin with the key.
        unset label 1
        if (r == 1) {
            set tmargin 5.5
            set label 1 value(sprintf('ctitle%d', c)) at graph 0.5, graph 1.06 center
        } else {
            unset tmargin
        }
        if (r * c > 1) { unset key } else { set key }
        plot for [i = 1 : nseries] data index ((r - 1) * ncol + c - 1) \
            using 1:(column(3 * i - 1)):(column(3 * i)):(column(3 * i + 1)) \
            with yerrorlines ls style(i) title word(series, i)
    }
}
unset multiplot
