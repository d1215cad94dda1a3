# common.gp: the look shared by every cpnsim figure; `cpnsim plot` sends it ahead of
# each figure's script. Set by cpnsim: fmt ('png', 'pdf' or 'svg'), out (the file),
# wcm and hcm (the size in cm; 16 cm is a thesis page's text width) and tcm (the room
# the title takes at the top, 0 without one).
#
# Greyscale by design: series differ in grey level, dash pattern and marker at once,
# bars in fill grey with black borders, so a figure reads the same printed in black
# and white. The PNG is drawn at 200 dpi with the PDF's proportions.
if (fmt eq 'pdf') {
    set terminal pdfcairo size wcm cm, hcm cm font 'Helvetica,9' linewidth 1 rounded \
        pointscale 0.7
} else { if (fmt eq 'svg') {
    set terminal svg size wcm * 72 / 2.54, hcm * 72 / 2.54 font 'Helvetica,9' linewidth 1 \
        rounded
} else {
    set terminal pngcairo size wcm * 200 / 2.54, hcm * 200 / 2.54 font 'Helvetica,24' \
        linewidth 2.5 rounded pointscale 1.6
} }
set output out
# A smaller font, for the labels on bars (the PNG's fonts are drawn at 200 dpi).
smallfont = fmt eq 'png' ? ',17' : ',6.5'
set termoption noenhanced
set encoding utf8
set border 3 lw 1
set xtics nomirror out
set ytics nomirror out
set grid ytics lc rgb '#d0d0d0' lw 0.5 dt 1
set key noopaque samplen 3 spacing 1.1

# Line series: no two alike in grey level and dash pattern together (a dash pattern
# each), with a marker each where points are drawn. The PNG's lines are 2.5 times
# thicker and their round caps would fill the gaps of the PDF's dash lengths, drawing
# every dashed line solid: its dashes and gaps are 2.5 times longer (dk).
dk = fmt eq 'png' ? 2.5 : 1
set style line 1 lc rgb '#000000' dt 1 lw 1.2 pt 7 ps 0.6
set style line 2 lc rgb '#505050' dt (6 * dk, 3 * dk) lw 1.2 pt 5 ps 0.6
set style line 3 lc rgb '#000000' dt (1 * dk, 4 * dk) lw 1.8 pt 9 ps 0.7
set style line 4 lc rgb '#808080' dt (10 * dk, 4 * dk, 1 * dk, 4 * dk) lw 1.4 pt 4 ps 0.6
set style line 5 lc rgb '#303030' dt (16 * dk, 5 * dk) lw 1.2 pt 6 ps 0.6
set style line 6 lc rgb '#a0a0a0' dt 1 lw 1.6 pt 8 ps 0.7
set style line 7 lc rgb '#000000' dt (6 * dk, 2 * dk, 1 * dk, 2 * dk, 1 * dk, 2 * dk) lw 1.2 \
    pt 11 ps 0.7
set style line 8 lc rgb '#606060' dt (2 * dk, 5 * dk) lw 1.6 pt 13 ps 0.7
nstyles = 8
style(i) = (i - 1) % nstyles + 1

# Bar fills: grey levels evenly spread from white to near black over the series of
# the figure (nseries), so that neighbours always differ.
fillg(i) = int(255 - (i - 1) * 223.0 / (exists('nseries') && nseries > 1 ? nseries - 1 : 1))
fillc(i) = sprintf('#%02x%02x%02x', fillg(i), fillg(i), fillg(i))

# Panels. A figure's panels are placed by hand, not by `set multiplot layout`, so
# that the key can have a plot of its own across the whole width (a key inside a
# panel wraps to the panel's width and runs into the bars). A script sets grow and
# gcol (the grid), gl, gr, gb, gt (the grid's edges, screen) and hg, vg (the gaps
# between panels, screen), then for panel p (filled row by row) `@panel`.
pw = 0; ph = 0
panel_l(p) = gl + ((p - 1) % gcol) * ((gr - gl + hg) / gcol)
panel_t(p) = gt - int((p - 1) / gcol) * ((gt - gb + vg) / grow)
panel = 'set lmargin at screen panel_l(p); set rmargin at screen panel_l(p) + (gr - gl + hg) / gcol - hg; set tmargin at screen panel_t(p); set bmargin at screen panel_t(p) - (gt - gb + vg) / grow + vg'
# The left edge of the panels: room for the y tick labels and the y label.
ycm = 2.2
# The key plot: the series' samples in one row (two past keycols) at the top, under
# the title: `@keyplot`, then `plot for [i = 1 : nseries] NaN with ... title ...`.
# gnuplot overestimates the text's width, so five entries need a narrower spacing
# to fit one row; fewer get more.
keycols = 5
keyplot = "keyw = nseries > 4 ? -1 : 1; set lmargin at screen 0.02; set rmargin at screen 0.98; set tmargin at screen 1 - (tcm + 0.05) / hcm; set bmargin at screen 1 - (tcm + 0.06) / hcm; unset border; unset tics; unset xlabel; unset ylabel; unset title; unset label; unset arrow; unset grid; set xrange [0 : 1]; set yrange [0 : 1]; set key at screen 0.5, screen 1 - (tcm + 0.05) / hcm center top horizontal maxcols keycols samplen 3 width keyw Left reverse"
