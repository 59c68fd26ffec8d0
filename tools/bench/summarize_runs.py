#!/usr/bin/env python3
"""Medians over repeated weft-bench runs: one markdown row per (collective, size, place) with
the median native and weft times over the runs, the speedup of those medians, and the range of
the per-run speedups (this machine's runs are bimodal; docs/intra-node.md).

    summarize_runs.py RUN1.csv RUN2.csv ... > summary.md
"""
import csv
import statistics
import sys
from collections import defaultdict


def main(paths):
    times = defaultdict(lambda: defaultdict(list))  # key -> impl -> [time per run]
    order = []
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                key = (row["collective"], int(row["bytes"]), "in" if row["inplace"] == "1" else "out")
                if key not in times:
                    order.append(key)
                times[key][row["impl"]].append(float(row["time_us"]))
    print("| collective | size (B) | place | native us (median) | weft us (median) | speedup | per-run speedups |")
    print("|---|---|---|---|---|---|---|")
    for key in order:
        native, weft = times[key]["native"], times[key]["weft"]
        if not native or not weft:
            continue
        runs = sorted(n / w for n, w in zip(native, weft))
        n_med, w_med = statistics.median(native), statistics.median(weft)
        print(f"| {key[0]} | {key[1]} | {key[2]} | {n_med:.2f} | {w_med:.2f} | "
              f"{n_med / w_med:.2f}x | {', '.join(f'{r:.2f}' for r in runs)} |")


if __name__ == "__main__":
    main(sys.argv[1:])
