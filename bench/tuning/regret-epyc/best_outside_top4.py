#!/usr/bin/env python3
"""Rows of a --regret run with wisdom above 1.15, and whether the best recipe was among the
top 4 candidates weft-tune timed (the order of the calibrated run's CSV: the default's recipe
first, then the model's ranking).
    python3 best_outside_top4.py RUN/2ranks-openmpi ...
"""
import collections
import csv
import sys

for run in sys.argv[1:]:
    order = collections.defaultdict(list)
    for r in csv.reader(open(run + '/regret-calibrated.csv')):
        if r and not r[0].startswith('#') and r[4] == '0':
            order[(r[0], int(r[1]))].append(r[5])
    for line in open(run + '/regret-wisdom.txt'):
        f = line.split()
        if len(f) != 7 or line.startswith('#') or f[0] in ('collective', 'regret:'):
            continue
        key, best, regret = (f[0], int(f[1])), f[4], float(f[6])
        if regret > 1.15:
            top = order[key][:4]
            print('%s %s %d: default %s, best %s, %.3f, %s top 4 %s' %
                  (run, key[0], key[1], f[2], best, regret, 'in' if best in top else 'NOT in', top))
