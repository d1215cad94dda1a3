# common.gp: the look shared by every cpnsim figure; `cpnsim plot` sends it ahead of
# each figure's script. Set by cpnsim: fmt ('png' or 'pdf'), out (the file), wcm and
# hcm (the size in cm; 16 cm is a thesis page's text width).
#
# Greyscale by design: series differ in grey level, dash pattern and marker at once,
# bars in fill grey with black borders, so a figure reads the same printed in black
# and white. The PNG is drawn at 200 dpi with the PDF's proportions.
if (fmt eq 'pdf') {
    set terminal pdfcairo size wcm cm, hcm cm font 'Helvetica,9' linewidth 1 rounded \
        pointscale 0.7
} else {
    set terminal pngcairo size wcm * 200 / 2.54, hcm * 200 / 2.54 font 'Helvetica,24' \
        linewidth 2.5 rounded pointscale 1.6
}
set output out
set termoption noenhanced
set encoding utf8
set border 3 lw 1
set xtics nomirror out
set ytics nomirror out
set grid ytics lc rgb '#d0d0d0' lw 0.5 dt 1
set key noopaque samplen 3 spacing 1.1

# Line series: grey level, dash and marker all differ.
set style line 1 lc rgb '#000000' dt 1 lw 1.2 pt 7 ps 0.6
set style line 2 lc rgb '#555555' dt 2 lw 1.2 pt 5 ps 0.6
set style line 3 lc rgb '#909090' dt 3 lw 1.4 pt 9 ps 0.7
set style line 4 lc rgb '#000000' dt 4 lw 1.2 pt 4 ps 0.6
set style line 5 lc rgb '#555555' dt 5 lw 1.2 pt 6 ps 0.6
set style line 6 lc rgb '#909090' dt 1 lw 1.2 pt 8 ps 0.7
set style line 7 lc rgb '#000000' dt 2 lw 1.2 pt 11 ps 0.7
set style line 8 lc rgb '#555555' dt 3 lw 1.2 pt 13 ps 0.7
nstyles = 8
style(i) = (i - 1) % nstyles + 1

# Bar fills from white to black; patterns take over past six series.
fills = '#ffffff #c0c0c0 #707070 #303030 #e6e6e6 #a0a0a0'
nfills = 6
fillc(i) = word(fills, (i - 1) % nfills + 1)
