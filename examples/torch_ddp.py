"""Trains a small model with DistributedDataParallel on weft, and the same model on Gloo.

    mpiexec -n 2 /usr/bin/python3 examples/torch_ddp.py   (PYTHONPATH: build-openmpi/python)

Each rank feeds its own batches; DDP averages the gradients with weft's allreduce. At the end
the parameters must be identical on every rank and equal to the Gloo run's: to the last bit at
2 ranks (a sum of two numbers does not depend on the order), within 1e-6 otherwise, since
weft and Gloo may add more than two numbers in different orders.
"""
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import weft_torch

rank, size = weft_torch.mpi_world()
os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29650")
dist.init_process_group("weft", init_method="env://", rank=rank, world_size=size)
gloo = dist.new_group(backend="gloo")


def train(group, steps=8):
    torch.manual_seed(0)  # the same initial model on every rank and for both backends
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.Tanh(), torch.nn.Linear(64, 1))
    ddp = DDP(model, process_group=group)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
    data = torch.Generator().manual_seed(1000 + rank)  # this rank's own batches
    losses = []
    for _ in range(steps):
        x = torch.randn(16, 32, generator=data)
        y = x.sum(1, keepdim=True).sin()
        loss = torch.nn.functional.mse_loss(ddp(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return torch.cat([p.detach().reshape(-1) for p in model.parameters()]), losses


weft_params, weft_losses = train(dist.group.WORLD)
gloo_params, _ = train(gloo)

# Identical on every rank: the smallest and largest value of each parameter over the ranks agree.
lo, hi = weft_params.clone(), weft_params.clone()
dist.all_reduce(lo, op=dist.ReduceOp.MIN)
dist.all_reduce(hi, op=dist.ReduceOp.MAX)
same_everywhere = torch.equal(lo, hi)
if size <= 2:
    matches_gloo = torch.equal(weft_params, gloo_params)
else:
    matches_gloo = torch.allclose(weft_params, gloo_params, rtol=1e-6, atol=1e-6)
ok = torch.tensor([1 if same_everywhere and matches_gloo else 0])
dist.all_reduce(ok, op=dist.ReduceOp.MIN)
if rank == 0:
    for step, loss in enumerate(weft_losses):
        print("step %d loss %.6f" % (step, loss))
    print("parameters: %d, identical on all %d ranks: %s, equal to Gloo's%s: %s"
          % (weft_params.numel(), size, same_everywhere, " to the last bit" if size <= 2 else "",
             matches_gloo))
    print("Correct: %s" % ("YES" if ok.item() == 1 else "NO"))
dist.destroy_process_group()
sys.exit(0 if ok.item() == 1 else 1)
