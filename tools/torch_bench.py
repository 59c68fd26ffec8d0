"""torch.distributed collectives on weft against Gloo, side by side in one run, on the same
tensors: allreduce, allgather (all_gather into a list), reduce_scatter and alltoall
(all_to_all_single), float32, message sizes from 4 KiB to 64 MiB (the size of each rank's
input; allgather's output and reduce_scatter's input are world size times that). Gloo in torch
1.13 has no reduce_scatter: its row times what a Gloo user runs instead, an allreduce of the
whole input (marked "gloo=allreduce").

    mpiexec -n 2 /usr/bin/python3 tools/torch_bench.py [--sizes 4K,64K,...] [--reps 5]

Each cell is the median over --reps repetitions of the mean time of a timed loop (a barrier
before each loop; the loop's length scales with the size). Rank 0 prints one row per
collective and size: weft us, Gloo us, and Gloo/weft (above 1: weft is faster).
"""
import argparse
import os
import statistics
import time

import torch
import torch.distributed as dist

import weft_torch


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="4K,64K,1M,16M,64M")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--colls", default="allreduce,allgather,reduce_scatter,alltoall")
    args = ap.parse_args()
    rank, size = weft_torch.mpi_world()
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29670")
    dist.init_process_group("weft", init_method="env://", rank=rank, world_size=size)
    groups = {"weft": dist.group.WORLD, "gloo": dist.new_group(backend="gloo")}
    if rank == 0:
        print("# torch %s, %d ranks, float32; times in us (median of %d); ratio = gloo / weft"
              % (torch.__version__, size, args.reps))
        print("%-15s %10s %12s %12s %8s" % ("collective", "bytes", "weft_us", "gloo_us", "ratio"))
    for coll in args.colls.split(","):
        for nbytes in (parse_size(s) for s in args.sizes.split(",")):
            n = max(size, nbytes // 4 // size * size)  # divisible by the world size
            x = torch.ones(n)
            out = {"allreduce": None, "allgather": [torch.empty(n) for _ in range(size)],
                   "reduce_scatter": torch.empty(n), "alltoall": torch.empty(n)}[coll]
            big = torch.ones(n * size) if coll == "reduce_scatter" else None

            def call(group):
                if coll == "allreduce":
                    dist.all_reduce(x, group=group)
                elif coll == "allgather":
                    dist.all_gather(out, x, group=group)
                elif coll == "reduce_scatter" and group is groups["gloo"]:
                    dist.all_reduce(big, group=group)
                elif coll == "reduce_scatter":
                    dist.reduce_scatter_tensor(out, big, group=group)
                else:
                    dist.all_to_all_single(out, x, group=group)

            iters = max(2, min(200, (8 << 20) // max(nbytes, 1)))
            times = {}
            for name, group in groups.items():
                call(group)  # warm up (first-call set-up is not timed)
                samples = []
                for _ in range(args.reps):
                    dist.barrier(group=group)
                    t0 = time.perf_counter()
                    for _ in range(iters):
                        call(group)
                    samples.append((time.perf_counter() - t0) / iters * 1e6)
                # The slowest rank's time is the collective's time.
                t = torch.tensor([statistics.median(samples)], dtype=torch.float64)
                dist.all_reduce(t, op=dist.ReduceOp.MAX, group=groups["gloo"])
                times[name] = t.item()
            if rank == 0:
                print("%-15s %10d %12.1f %12.1f %8.2f%s" % (
                    coll, n * 4, times["weft"], times["gloo"], times["gloo"] / times["weft"],
                    "  gloo=allreduce" if coll == "reduce_scatter" else ""), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
