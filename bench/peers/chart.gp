# Bar chart of race.sh's medians: events/s, CPU-µs per event, peak RSS, one panel each.
# gnuplot -e "datafile='X.dat'; outfile='X.png'; lines='1000000'" chart.gp
# Data lines: "label" events_per_s cpu_us_per_event peak_rss_mb
set terminal pngcairo size 1200,440 font "sans,10"
set output outfile
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.8
set grid ytics
set xtics rotate by -30 scale 0 font ",9"
set bmargin 6
unset key
set multiplot layout 1,3 title sprintf("Shipping %s log lines into tern sink (median of runs; lower is better for CPU and RSS)", lines)
set title "events/s (higher is better)"
set yrange [*:*]
stats datafile using 2 nooutput
set yrange [0:STATS_max * 1.15]
plot datafile using 2:xtic(1) linecolor rgb "#4477aa", \
     '' using 0:2:(sprintf("%.0f", $2)) with labels offset 0,0.7 notitle
set title "CPU-µs per event"
set yrange [*:*]
stats datafile using 3 nooutput
set yrange [0:STATS_max * 1.15]
plot datafile using 3:xtic(1) linecolor rgb "#ee6677", \
     '' using 0:3:(sprintf("%.2f", $3)) with labels offset 0,0.7 notitle
set title "peak RSS (MB)"
set yrange [*:*]
stats datafile using 4 nooutput
set yrange [0:STATS_max * 1.15]
plot datafile using 4:xtic(1) linecolor rgb "#228833", \
     '' using 0:4:(sprintf("%.0f", $4)) with labels offset 0,0.7 notitle
unset multiplot
