#!/usr/bin/env python3
"""Tables from cluster/*.txt: per collective and size, the medians over runs of native's and
weft's time with node levels over shared memory (model-runK) and point-to-point (model-shm0-runK),
and of the forced allreduce compositions. Usage: compare.py DIR"""
import glob, re, statistics, sys

def parse(path):
    rows, coll = {}, None
    for line in open(path):
        m = re.match(r"# weft-bench (\w+):", line)
        if m:
            coll = m.group(1)
            continue
        f = line.split()
        if coll and len(f) >= 15 and f[0].isdigit():
            rows[(coll, int(f[0]))] = (float(f[6]), float(f[10]))  # native us, weft us
    return rows

def runs(d, name):
    return [parse(p) for p in sorted(glob.glob(f"{d}/{name}-run*.txt"))]

def med(rs, key, i):
    v = [r[key][i] for r in rs if key in r]
    return statistics.median(v) if v else float("nan")

d = sys.argv[1]
shm, p2p = runs(d, "model"), runs(d, "model-shm0")
print("| collective | size (B) | native us | weft us, node shm | weft us, node p2p | p2p / shm | native / shm |")
print("|---|---:|---:|---:|---:|---:|---:|")
for key in sorted(shm[0], key=lambda k: (k[0], k[1])):
    nat = statistics.median([med(shm, key, 0), med(p2p, key, 0)])
    s, p = med(shm, key, 1), med(p2p, key, 1)
    print(f"| {key[0]} | {key[1]} | {nat:.1f} | {s:.1f} | {p:.1f} | {p / s:.2f} | {nat / s:.2f} |")
a, b = runs(d, "allreduce-shmpipe-rexch2"), runs(d, "allreduce-rexch22-rexch2")
print()
print("| allreduce size (B) | native us | shmpipe/rexch:2 us | rexch:-2,2/rexch:2 us | p2p / shm | native / shm |")
print("|---:|---:|---:|---:|---:|---:|")
for key in sorted(a[0]):
    nat = statistics.median([med(a, key, 0), med(b, key, 0)])
    s, p = med(a, key, 1), med(b, key, 1)
    print(f"| {key[1]} | {nat:.1f} | {s:.1f} | {p:.1f} | {p / s:.2f} | {nat / s:.2f} |")
