#!/usr/bin/python3
"""Plot weft-bench CSV output: log-log time vs per-rank bytes, one line per implementation
(and per place when both in-place and out-of-place were measured), one panel per collective.

usage: plot_bench.py (installed: weft-bench-plot) RESULTS.csv OUT.png [--title TEXT]
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if "--help" in argv or "-h" in argv:
        print(__doc__)
        return 0
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, dst = argv[1], argv[2]
    title = argv[argv.index("--title") + 1] if "--title" in argv else None
    series = defaultdict(list)  # (collective, impl, place) -> [(bytes, time_us)]
    meta = {}
    with open(src, newline="") as f:
        for row in csv.DictReader(f):
            place = "in-place" if row["inplace"] == "1" else "out-of-place"
            series[(row["collective"], row["impl"], place)].append(
                (int(row["bytes"]), float(row["time_us"])))
            meta[row["collective"]] = (row["dtype"], row["op"])
    if not series:
        print(f"plot_bench: no rows in {src}", file=sys.stderr)
        return 1
    colls = sorted({k[0] for k in series})
    ncols = min(3, len(colls))
    nrows = (len(colls) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.5 * ncols, 4.8 * nrows), squeeze=False)
    for ax in axes.flat[len(colls):]:
        ax.set_visible(False)
    styles = {"native": "-", "weft": "--"}
    for ax, coll in zip(axes.flat, colls):
        for (c, impl, place), pts in sorted(series.items()):
            if c != coll:
                continue
            pts.sort()
            ax.loglog([p[0] for p in pts], [p[1] for p in pts], styles.get(impl, ":"), marker="o",
                      markersize=3, label=f"{impl} ({place})")
        # Speedup (native time / weft time) on a second axis: log-log times hide a 1.5x.
        speed = ax.twinx()
        for place in sorted({k[2] for k in series if k[0] == coll}):
            native = dict(series.get((coll, "native", place), []))
            weft = dict(series.get((coll, "weft", place), []))
            sizes = sorted(set(native) & set(weft))
            if sizes:
                speed.semilogx(sizes, [native[b] / weft[b] for b in sizes], ":", color="gray",
                               marker="x", markersize=3, label=f"speedup ({place})")
        speed.axhline(1.0, color="gray", linewidth=0.5)
        speed.set_ylabel("speedup (native / weft)")
        speed.set_ylim(bottom=0)
        speed.legend(loc="lower right")
        dtype, op = meta[coll]
        ax.set_title(f"{coll} ({dtype}, {op})")
        ax.set_xlabel("bytes per rank")
        ax.set_ylabel("time (us, median of slowest rank)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)
    print(f"wrote {dst}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
