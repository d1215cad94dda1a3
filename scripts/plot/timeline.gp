# timeline.gp: one run over time. Top: GPU utilisation per site (busy GPUs over the
# site's GPUs, as scraped). Bottom: queued, running and transferring jobs. Data: time
# (in tunit), queue length, running, transferring, then one utilisation column (%)
# per site. Values hold until the next row, so both panels are steps.
# In: data, nsites, sites (names, one word each), tunit (e.g. 'h'), title.
set multiplot layout 2, 1 title title
set lmargin 10
set xrange [0 : *]
set format x ''
set xlabel ''
set ylabel 'GPU utilisation (%)'
# Room above 100% (and above the highest job count below) for the key, clear of the
# lines.
set yrange [0 : 135]
set ytics 0, 20, 100
set key top right horizontal samplen 2
plot for [i = 1 : nsites] data using 1:(column(4 + i)) with steps ls style(i) \
    title word(sites, i)
set format x '%g'
set xlabel sprintf('time (%s)', tunit)
set ylabel 'jobs'
set yrange [0 : *]
set offsets 0, 0, graph 0.3, 0
set ytics auto
plot data using 1:2 with steps ls 1 title 'queued', \
     data using 1:3 with steps ls 2 title 'running', \
     data using 1:4 with steps ls 3 title 'transferring'
unset multiplot
