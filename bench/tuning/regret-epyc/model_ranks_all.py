#!/usr/bin/env python3
"""Regret if selection let the cost model rank every candidate, one node included.

Reads weft-tune --regret --csv files (collective, bytes, measured us, model us, is-default,
recipe) and, per row, takes the candidate with the least modelled time: its measured time over
the row's best measured time is its regret. Prints median and max per file beside the default
choice's (selection's measured one-node rule), and each row where the model's pick is 1.25x or
more behind.
    python3 model_ranks_all.py RUN/2ranks-openmpi/regret-calibrated.csv ...
"""
import collections
import csv
import sys


def analyze(path):
    rows = collections.defaultdict(list)
    for r in csv.reader(open(path)):
        if not r or r[0].startswith('#') or r[0] == 'collective':
            continue
        rows[(r[0], int(r[1]))].append((float(r[2]), float(r[3]), int(r[4]), r[5]))
    picked, default = [], []
    for key, v in rows.items():
        cands = [x for x in v if not x[2]]
        best = min(x[0] for x in cands)
        pick = min(cands, key=lambda x: x[1])
        chosen = [x for x in v if x[2]][0][3]
        same = [x for x in cands if x[3] == chosen]
        chosen_us = same[0][0] if same else [x for x in v if x[2]][0][0]
        picked.append(pick[0] / best)
        default.append(chosen_us / best)
        if pick[0] / best > 1.25:
            print('  %s %d: model takes %s, %.2fx the best (%s); default %s %.2fx' %
                  (key[0], key[1], pick[3], pick[0] / best, min(cands)[3], chosen,
                   chosen_us / best))
    picked.sort()
    default.sort()
    print('%s\n  model ranks all: median %.3f max %.3f | default: median %.3f max %.3f' %
          (path, picked[len(picked) // 2], picked[-1], default[len(default) // 2], default[-1]))


for p in sys.argv[1:]:
    analyze(p)
