#!/usr/bin/env python3
"""Old against new library over rounds of weft-bench text output: per (collective, size), the
range of the per-run speedups (native / weft, both timed in the same run) and of weft's time.

    compare_ab.py DIR PREFIX     # reads DIR/PREFIX-old-*.txt and DIR/PREFIX-new-*.txt
"""
import glob
import re
import sys


def main(d, prefix):
    rows, order = {}, []
    for lib in ("old", "new"):
        for path in sorted(glob.glob(f"{d}/{prefix}-{lib}-*.txt")):
            coll = None
            for line in open(path):
                m = re.match(r"# weft-bench (\S+):", line)
                if m:
                    coll = m.group(1)
                if re.match(r"^\s+\d", line):
                    f = line.split()
                    key = (coll, int(f[0]))
                    if key not in rows:
                        rows[key] = {"old": [], "new": []}
                        order.append(key)
                    rows[key][lib].append((float(f[10]), float(f[14].rstrip("x"))))
    span = lambda v: "%.2f-%.2f" % (min(v), max(v))
    for key in order:
        o, n = rows[key]["old"], rows[key]["new"]
        if not o or not n:
            continue
        print("%-15s %8d  old %sx (weft %s us)  new %sx (weft %s us)" % (
            key[0], key[1], span([x[1] for x in o]), span([x[0] for x in o]),
            span([x[1] for x in n]), span([x[0] for x in n])))


if __name__ == "__main__":
    main(*sys.argv[1:3])
