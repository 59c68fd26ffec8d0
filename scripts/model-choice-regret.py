#!/usr/bin/env python3
"""The model choosing freely, judged offline on a regret run's measurements.

For every (collective, bytes) row of a `weft-tune --regret --csv` file, asks
`weft-plan --candidates --wisdom WISDOM` for the model's estimate of each candidate, takes the
cheapest among those the run measured, and prints its regret: its measured time over the best
measured time of the row. So a change to the model can be judged against one set of timings,
without the rule that decides on one node (docs/tuning.md). zerocopy is never taken: the tuner
does not time it on ordinary buffers.

  scripts/model-choice-regret.py WEFT_PLAN CSV WISDOM RANKS [TOPOLOGY]
"""
import collections
import csv
import statistics
import subprocess
import sys


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    plan, csv_path, wisdom, ranks = sys.argv[1:5]
    topo = ["--topology", sys.argv[5]] if len(sys.argv) == 6 else []
    measured = collections.defaultdict(dict)
    with open(csv_path) as f:
        for r in csv.DictReader(f):
            if r["default"] == "0":
                measured[(r["collective"], int(r["bytes"]))][r["recipe"]] = float(r["measured_us"])
    rows = []
    for (coll, nbytes), times in measured.items():
        out = subprocess.run([plan, coll, "-p", ranks, "-n", str(nbytes // 4), "-d", "float",
                              "--wisdom", wisdom, "--candidates", *topo],
                             capture_output=True, text=True, check=True).stdout
        estimate = {}
        for line in out.splitlines()[1:]:  # "chosen|candidate  US us  RECIPE"
            f = line.split()
            if len(f) >= 4 and f[3] in times:
                estimate[f[3]] = float(f[1])
        pick = min(estimate, key=estimate.get)
        best = min(times, key=times.get)
        rows.append((times[pick] / times[best], coll, nbytes, pick, estimate[pick], times[pick],
                     best, estimate.get(best, float("nan")), times[best]))
    print("# model's free choice among the measured candidates: " + " ".join(sys.argv[1:]))
    print("%-15s %10s  %-22s %10s %10s  %-22s %10s %10s %7s" %
          ("collective", "bytes", "model's pick", "est_us", "meas_us", "best measured",
           "est_us", "meas_us", "regret"))
    for r in sorted(rows, key=lambda r: (r[1], r[2])):
        print("%-15s %10d  %-22s %10.2f %10.2f  %-22s %10.2f %10.2f %7.3f" % (r[1:] + (r[0],)))
    regret = [r[0] for r in rows]
    print("regret: median %.3f max %.3f rows %d" % (statistics.median(regret), max(regret),
                                                     len(regret)))


if __name__ == "__main__":
    main()
