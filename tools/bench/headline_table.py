#!/usr/bin/python3
"""The README's headline table from demo.sh's CSV files: speedup (native time / weft time) per
size, one column per MPI and cache regime, out of place and in place.

usage: headline_table.py DIR   (DIR holds bench-allreduce-<mpi>-<hot|rotate>.csv)
"""
import csv
import os
import sys


def load(path):
    rows = {}  # (bytes, inplace) -> {impl: time_us}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows.setdefault((int(r["bytes"]), r["inplace"] == "1"), {})[r["impl"]] = float(
                r["time_us"])
    return rows


def size_name(b):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div:
            return f"{b // div} {unit}"
    return f"{b} B"


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) == 2 else 2
    cols = []
    for mpi, label in (("openmpi", "Open MPI"), ("mpich", "MPICH")):
        for regime in ("hot", "rotate"):
            path = os.path.join(argv[1], f"bench-allreduce-{mpi}-{regime}.csv")
            if os.path.exists(path):
                cols.append((f"{label}, {'hot' if regime == 'hot' else 'rotated'}", load(path)))
    if not cols:
        print(f"headline_table: no bench-allreduce-*.csv in {argv[1]}", file=sys.stderr)
        return 1
    sizes = [8, 1 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20]
    print("| allreduce, 2 ranks | " + " | ".join(c[0] for c in cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for b in sizes:
        cells = []
        for _, rows in cols:
            out = rows.get((b, False), {})
            inp = rows.get((b, True), {})
            if "native" in out and "weft" in out:
                cell = f"{out['native'] / out['weft']:.2f}x"
                if "native" in inp and "weft" in inp:
                    cell += f" ({inp['native'] / inp['weft']:.2f}x)"
                cells.append(cell)
            else:
                cells.append("n/a")
        print(f"| {size_name(b)} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
