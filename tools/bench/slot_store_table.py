#!/usr/bin/env python3
"""Table of scripts/bench-slot-stores.sh runs: one row per run (WEFT_SHM_STREAM mode, round,
the placement probe's round trip from its INFO line), weft/native speedup per collective and
size. Usage: slot_store_table.py DIR MPI"""
import glob
import re
import sys

COLLS = ['allreduce', 'reduce_scatter', 'allgather', 'broadcast', 'reduce', 'alltoall']
SIZES = (65536, 1048576, 16777216)


def main():
    folder, mpi = sys.argv[1], sys.argv[2]
    print('| WEFT_SHM_STREAM | round | probe round trip (ns) | ' +
          ' | '.join(f'{c} 64K / 1M / 16M' for c in COLLS) + ' |')
    print('|---' * (3 + len(COLLS)) + '|')
    for f in sorted(glob.glob(f'{folder}/stores-*-{mpi}-round*.txt')):
        text = open(f).read()
        rtt = re.search(r'round trip (\d+) ns', text)
        mode, rnd = re.search(rf'stores-(\w+)-{mpi}-round(\d+)', f).groups()
        coll, cells = None, {}
        for line in text.splitlines():
            if line.startswith('# weft-bench'):
                coll = line.split()[2].rstrip(':')
            elif re.match(r'^ +\d', line):
                p = line.split()
                cells[(coll, int(p[0]))] = p[14]
        print(f'| {mode} | {rnd} | {rtt.group(1) if rtt else "-"} | ' + ' | '.join(
            ' / '.join(cells.get((c, s), '-') for s in SIZES) for c in COLLS) + ' |')


if __name__ == '__main__':
    main()
