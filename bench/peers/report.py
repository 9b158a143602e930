#!/usr/bin/env python3
"""Summarises race.sh's per-run CSV: median of each metric per shipper.

Usage: report.py RUNS.csv OUT.md OUT.dat NOTE
OUT.md is a markdown table; OUT.dat is the gnuplot input (only shippers with a finished run).
Each metric's median is taken separately over the runs that delivered every line.
"""
import csv
import statistics
import sys

LABELS = {
    "tern-memory": "Tern, memory queue",
    "tern-memory-nogzip": "Tern, memory queue, no gzip",
    "tern-disk": "Tern, disk queue",
    "tern-disk-nogzip": "Tern, disk queue, no gzip",
    "syslog-ng": "syslog-ng",
    "rsyslog": "rsyslog",
}
# Short names for the chart's x axis.
CHART_LABELS = {
    "tern-memory": "Tern memory",
    "tern-memory-nogzip": "Tern memory, no gzip",
    "tern-disk": "Tern disk",
    "tern-disk-nogzip": "Tern disk, no gzip",
}


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: report.py RUNS.csv OUT.md OUT.dat NOTE")
    runs_csv, out_md, out_dat, note = sys.argv[1:]
    order, rows = [], {}
    with open(runs_csv, newline="") as f:
        for r in csv.DictReader(f):
            s = r["shipper"]
            if s not in rows:
                order.append(s)
                rows[s] = []
            rows[s].append(r)

    summary = {}
    for s in order:
        ok = [r for r in rows[s] if r["status"] == "ok"]
        if ok:
            summary[s] = {
                k: statistics.median(float(r[k]) for r in ok)
                for k in ("events_per_s", "cpu_us_per_event", "peak_rss_mb", "wall_s")
            }
            summary[s]["runs"] = "%d of %d" % (len(ok), len(rows[s]))
    ref = summary.get("syslog-ng", {}).get("cpu_us_per_event")

    lines = rows[order[0]][0]["lines"] if order else "?"
    # The machine's load when the runs started: CPU time per event grows on a busy machine.
    loads = [float(r["load1"]) for s in order for r in rows[s] if r["load1"]]
    load = " load average at the runs' starts %.1f–%.1f;" % (min(loads), max(loads)) if loads else ""
    md = [
        "Median of the runs (%s lines of ~216 bytes):%s %s." % (f"{int(lines):,}", load, note),
        "",
        "| shipper | events/s | CPU-µs per event | peak RSS (MB) | wall (s) | CPU vs syslog-ng | runs |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for s in order:
        label = LABELS.get(s, s)
        if s in summary:
            m = summary[s]
            vs = "%.2f×" % (m["cpu_us_per_event"] / ref) if ref else "–"
            md.append(
                "| %s | %s | %.2f | %.1f | %.2f | %s | %s |"
                % (label, f"{m['events_per_s']:,.0f}", m["cpu_us_per_event"],
                   m["peak_rss_mb"], m["wall_s"], vs, m["runs"])
            )
        else:
            md.append("| %s | %s | – | – | – | – | 0 of %d |" % (label, rows[s][-1]["status"], len(rows[s])))
    with open(out_md, "w") as f:
        f.write("\n".join(md) + "\n")

    with open(out_dat, "w") as f:
        for s in order:
            if s in summary:
                m = summary[s]
                f.write('"%s" %.0f %.3f %.1f\n' % (CHART_LABELS.get(s, s), m["events_per_s"],
                                                    m["cpu_us_per_event"], m["peak_rss_mb"]))


if __name__ == "__main__":
    main()
