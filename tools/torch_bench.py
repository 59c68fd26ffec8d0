"""torch.distributed collectives on weft against Gloo, side by side in one run, on the same
tensors: allreduce, allgather (all_gather into a list), reduce_scatter and alltoall
(all_to_all_single), float32, message sizes from 4 KiB to 64 MiB (the size of each rank's
input; allgather's output and reduce_scatter's input are world size times that). Gloo in torch
1.13 has no reduce_scatter: its row times what a Gloo user runs instead, an allreduce of the
whole input (marked "gloo=allreduce").

    mpiexec -n 2 /usr/bin/python3 tools/torch_bench.py [--sizes 4K,64K,...] [--reps 5]
    mpiexec -n 2 /usr/bin/python3 tools/torch_bench.py --ddp [--steps 20]

--ddp times DDP training steps instead: a model of 25.2 M parameters (six 2048x2048 linear
layers), the same initial weights, batches (--batch samples per rank) and bucket size (25 MB) on
weft and on Gloo, steps
alternating between the two; the median step time of each, and Gloo/weft.

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
    ap.add_argument("--ddp", action="store_true", help="time DDP training steps instead")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch", type=int, default=32, help="DDP: samples per rank and step")
    args = ap.parse_args()
    rank, size = weft_torch.mpi_world()
    # One intra-op thread per rank unless told otherwise: torch's default (one per core) puts
    # every rank's threads on every core, and the ranks then compete for them.
    torch.set_num_threads(int(os.environ.get("WEFT_BENCH_TORCH_THREADS", "1")))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29670")
    dist.init_process_group("weft", init_method="env://", rank=rank, world_size=size)
    groups = {"weft": dist.group.WORLD, "gloo": dist.new_group(backend="gloo")}
    if args.ddp:
        ddp_steps(rank, size, groups, args.steps, args.batch)
        dist.destroy_process_group()
        return
    if rank == 0:
        print("# torch %s, %d ranks, float32, %d intra-op thread(s) per rank; times in us (median "
              "of %d); ratio = gloo / weft" % (torch.__version__, size, torch.get_num_threads(),
                                               args.reps))
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


def ddp_steps(rank, size, groups, steps, batch):
    from torch.nn.parallel import DistributedDataParallel as DDP

    def model():
        torch.manual_seed(0)
        return torch.nn.Sequential(*[torch.nn.Linear(2048, 2048) for _ in range(6)])

    ddps = {name: DDP(model(), process_group=g, bucket_cap_mb=25) for name, g in groups.items()}
    opts = {name: torch.optim.SGD(m.parameters(), lr=1e-4) for name, m in ddps.items()}
    params = sum(p.numel() for p in ddps["weft"].parameters())
    data = torch.Generator().manual_seed(rank)
    x, y = torch.randn(batch, 2048, generator=data), torch.randn(batch, 2048, generator=data)
    times = {name: [] for name in ddps}
    for step in range(steps + 2):  # two warm-up steps, then alternate weft and Gloo
        for name, m in ddps.items():
            dist.barrier(group=groups[name])
            t0 = time.perf_counter()
            loss = torch.nn.functional.mse_loss(m(x), y)
            opts[name].zero_grad()
            loss.backward()
            opts[name].step()
            if step >= 2:
                times[name].append(time.perf_counter() - t0)
    med = {}
    for name in ddps:
        t = torch.tensor([statistics.median(times[name])], dtype=torch.float64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX, group=groups["gloo"])
        med[name] = t.item()
    if rank == 0:
        print("# DDP, torch %s, %d ranks, %.1f M parameters, bucket 25 MB, batch %d, median of %d "
              "steps, %d intra-op thread(s) per rank"
              % (torch.__version__, size, params / 1e6, batch, steps, torch.get_num_threads()))
        print("ddp_step_ms weft %.1f gloo %.1f ratio %.2f" % (med["weft"] * 1e3, med["gloo"] * 1e3,
                                                             med["gloo"] / med["weft"]))


if __name__ == "__main__":
    main()
