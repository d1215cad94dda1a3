# timeline.gp: runs over time, drawn as steps (values hold until the next row).
# One run (compare unset): top, GPU utilisation per site (busy GPUs over the site's
# GPUs, as scraped); bottom, queued, running and transferring jobs. Data: time (in
# tunit), queue length, running, transferring, then a utilisation column (%) per site.
# In: data, nsites, sname1..snameN (the sites), tunit (e.g. 'h'), title.
# Policies on one axis (compare = 1): top, busy GPUs; bottom, queued jobs; a line per
# series. Data: a block per series: time, busy GPUs, queue length.
# In: data, nseries, sname1..snameN (the series), tunit, title.
if (!exists('compare')) { compare = 0 }
if (!compare) { nseries = nsites }
grow = 2; gcol = 1; gl = ycm / wcm; gr = 0.96; hg = 0; vg = 0.6 / hcm
gb = 1.8 / hcm; gt = 1 - (tcm + 0.8 + kcm) / hcm
set multiplot title title
p = 1
@panel
set xrange [0 : *]
set format x ''
set xlabel ''
if (compare) {
    set ylabel 'busy GPUs'
    # [0, 1] with ticks 0 and 1 for a column of zeros (no job ever queued), which
    # gnuplot would warn is an empty range and tick in fractions of a job.
    ytop(c) = 'stats data using ' . c . ' nooutput; if (STATS_max > 0) { set yrange [0 : *] } else { set yrange [0 : 1]; set ytics 0, 1 }'
    eval ytop(2)
    plot for [i = 1 : nseries] data index (i - 1) using 1:2 with steps ls style(i) notitle
} else {
    set ylabel 'GPU utilisation (%)'
    set yrange [0 : 100]
    set ytics 0, 20, 100
    plot for [i = 1 : nseries] data using 1:(column(4 + i)) with steps ls style(i) notitle
}
p = 2
@panel
set format x '%g'
set xlabel sprintf('time (%s)', tunit)
set ylabel (compare ? 'queued jobs' : 'jobs')
set yrange [0 : *]
set ytics autofreq
if (compare) { eval ytop(3) }
if (compare) {
    plot for [i = 1 : nseries] data index (i - 1) using 1:3 with steps ls style(i) notitle
} else {
    # The key inside, above the highest line.
    set offsets 0, 0, graph 0.35, 0
    set key top right horizontal samplen 2.5 Left reverse
    plot data using 1:2 with steps ls 1 title 'queued', \
         data using 1:3 with steps ls 2 title 'running', \
         data using 1:4 with steps ls 3 title 'transferring'
    unset key
}
@keyplot
plot for [i = 1 : nseries] NaN with lines ls style(i) title value(sprintf('sname%d', i))
unset multiplot
