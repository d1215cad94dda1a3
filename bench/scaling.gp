# scaling.gp: one log-log scaling curve of `make bench` (bench/run.sh), after
# scripts/plot/common.gp. Set by the runner: dat (x and wall seconds per line), a and b
# (the least-squares fit log10 wall = a + b log10 x), xl (the x axis label).
set logscale xy
set format x '%.0s%c'
set xlabel xl
set ylabel 'wall time of the simulation (s)'
set key top left
set grid xtics ytics mxtics mytics lc rgb '#d0d0d0' lw 0.5
fit_label = sprintf('fit: wall ∝ x^%.2f', b)
plot dat using 1:2 with linespoints ls 1 title 'fifo (median)', \
     10**a * x**b with lines ls 3 title fit_label
