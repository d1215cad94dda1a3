# scaling.gp: the log-log scaling curves of `make bench` (bench/run.sh), after
# scripts/plot/common.gp. Set by the runner: xl (the x axis label); the runner appends
# the plot command: per policy, its medians (x and wall seconds per line) and the
# least-squares line log10 wall = a + b log10 x, in the policy's line style.
set logscale xy
set format x '%.0s%c'
set xlabel xl
set ylabel 'wall time of the simulation (s)'
set key top left
set grid xtics ytics mxtics mytics lc rgb '#d0d0d0' lw 0.5
