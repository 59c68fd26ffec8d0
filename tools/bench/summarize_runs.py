#!/usr/bin/env python3
"""Medians over repeated weft-bench runs.

    summarize_runs.py RUN1.csv RUN2.csv ... > summary.md
        one markdown row per (collective, size, place): the median native and weft times over
        the runs, the speedup of those medians, and the range of the per-run speedups (this
        machine's runs are bimodal; docs/intra-node.md).
    summarize_runs.py --floors RUN1.txt RUN2.txt ... > floors.md
        from the printed tables (the CSV has no floor columns): per row from 64 KiB, each run's
        fraction of the memory-traffic floor for weft and native, and the speedup cap 100/x that
        native's fraction x leaves (docs/benchmarking.md). Runs whose copy bandwidth at the end
        was flagged as off from the start's are left out and named.
"""
import csv
import re
import statistics
import sys
from collections import defaultdict


def speedups(paths):
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


def floors(paths, min_bytes=65536):
    rows = defaultdict(list)  # (collective, bytes, place) -> [(weft %, native %)]
    order, skipped = [], []
    for path in paths:
        with open(path) as f:
            text = f.read()
        if re.search(r"^# node copy bandwidth at the end: .*: the floor columns", text, re.M):
            skipped.append(path)
            continue
        coll = None
        for line in text.splitlines():
            m = re.match(r"# weft-bench (\S+):", line)
            if m:
                coll = m.group(1)
            cols = line.split()
            if line.startswith("#") or len(cols) < 3 or not cols[0].isdigit():
                continue
            if not (cols[-1].endswith("%") and cols[-2].endswith("%")) or int(cols[0]) < min_bytes:
                continue
            key = (coll, int(cols[0]), cols[5])  # size, place
            if key not in rows:
                order.append(key)
            rows[key].append((float(cols[-2][:-1]), float(cols[-1][:-1])))
    print("| collective | size (B) | place | weft floor per run | native floor per run | cap 100/native |")
    print("|---|---|---|---|---|---|")
    for key in order:
        v = rows[key]
        cap = ", ".join(f"{100 / n:.2f}x" if n > 0 else "n/a" for _, n in v)
        print(f"| {key[0]} | {key[1]} | {key[2]} | {', '.join(f'{w:.0f}%' for w, _ in v)} | "
              f"{', '.join(f'{n:.0f}%' for _, n in v)} | {cap} |")
    for path in skipped:
        print(f"\nLeft out: {path} (its copy bandwidth at the end was flagged as off from the start's).")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--floors"]:
        floors(sys.argv[2:])
    else:
        speedups(sys.argv[1:])
