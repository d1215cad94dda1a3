# bars.gp: clustered bars with 95% confidence intervals, in panels stacked top to
# bottom that share the x axis. Data: one block per panel (blocks separated by two
# blank lines); a row per cluster: its label, then for each series its bar's x
# position, the mean, the interval's low and high ends (NaN: no interval, as with one
# seed). A bar of height 0 is labelled "0", so that it is seen to be there; an
# interval of no width (or none) draws nothing.
# In: data, npanel, nseries, sname1..snameN (the series' names), clusters (how many),
#     bw (a bar's width), xtics and xticsbare ('"label" x, ...' and '"" x, ...'),
#     bare (1: one unnamed cluster; the series name their own bars), nokey (1: no
#     key: bare, or a single unnamed series), xrot (1:
#     tick labels turned), xlabel, title, topcm and botcm (room above the panels for
#     the key, and below them for the x axis), and per panel p: ylabelP, ymaxP (the
#     top of its y axis) and reflineP (y of a dashed reference line, or NaN).
set style fill solid 1.0 border lc rgb '#000000'
set boxwidth bw absolute
set xtics scale 0
if (xrot) { set xtics rotate by 90 right }
grow = npanel; gcol = 1; gl = ycm / wcm; gr = 0.98; hg = 0; vg = 0.4 / hcm
gb = botcm / hcm; gt = 1 - (tcm + topcm + kcm) / hcm
# Series i has an interval to draw in this row (NaN ends compare false).
ok(i) = column(4 * i + 1) > column(4 * i)
set multiplot title title
do for [p = 1 : npanel] {
    @panel
    set xrange [-0.5 : clusters - 0.5]
    set ylabel value(sprintf('ylabel%d', p))
    set yrange [0 : value(sprintf('ymax%d', p))]
    unset arrow 1
    ref = value(sprintf('refline%d', p))
    if (ref == ref) {
        set arrow 1 from graph 0, first ref to graph 1, first ref nohead dt 2 lw 1 \
            lc rgb '#000000' back
    }
    # Tick labels and the x label on the lowest panel only.
    eval 'set xtics (' . (p < npanel ? xticsbare : xtics) . ')'
    # The x label at the foot of the figure, under however tall the tick labels are.
    unset label 2
    if (p == npanel) { set label 2 xlabel at screen (gl + gr) / 2, screen 0.35 / hcm center }
    plot for [i = 1 : nseries] data index (p - 1) using (column(4 * i - 2)):(column(4 * i - 1)) \
            with boxes fc rgb fillc(i) lc rgb '#000000' notitle, \
         for [i = 1 : nseries] data index (p - 1) using (ok(i) ? column(4 * i - 2) : NaN):(column(4 * i)):(0):(column(4 * i + 1) - column(4 * i)) \
            with vectors nohead lc rgb '#000000' lw 1 notitle, \
         for [j = 0 : 2 * nseries - 1] data index (p - 1) using (ok(j / 2 + 1) ? column(4 * (j / 2) + 2) - bw / 4 : NaN):(column(4 * (j / 2 + 1) + j % 2)):(bw / 2):(0) \
            with vectors nohead lc rgb '#000000' lw 1 notitle, \
         for [i = 1 : nseries] data index (p - 1) \
            using (column(4 * i - 2)):(0):(column(4 * i - 1) == 0 ? '0' : '') \
            with labels font smallfont offset 0, 0.5 notitle
}
if (!nokey) {
    @keyplot
    plot for [i = 1 : nseries] NaN with boxes fc rgb fillc(i) lc rgb '#000000' \
        title value(sprintf('sname%d', i))
}
unset multiplot
