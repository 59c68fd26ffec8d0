"""An mpi4py program, unaware of weft: collectives on numpy arrays and Python objects.
Run natively and under weftrun; tests/shim/compare.sh requires identical output."""
import hashlib

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()


def report(name, arr):
    digests = comm.gather(hashlib.sha1(np.ascontiguousarray(arr).tobytes()).hexdigest()[:16], root=0)
    if rank == 0:
        print(f"{name}: {' '.join(digests)}", flush=True)


x = np.arange(1000, dtype=np.float64) * (rank + 1) / 8.0
y = np.empty_like(x)
comm.Allreduce(x, y, op=MPI.SUM)
report("Allreduce float64 sum", y)
i = (np.arange(777, dtype=np.int32) + rank) % 13
j = np.empty_like(i)
comm.Allreduce(i, j, op=MPI.MAX)
report("Allreduce int32 max", j)
comm.Allreduce(MPI.IN_PLACE, i, op=MPI.SUM)
report("Allreduce in place", i)
r = np.zeros_like(x)
comm.Reduce(x, r, op=MPI.SUM, root=size - 1)
report("Reduce", r)
b = np.arange(64, dtype=np.int64) if rank == 0 else np.zeros(64, dtype=np.int64)
comm.Bcast(b, root=0)
report("Bcast", b)
g = np.empty(size * 100, dtype=np.float32)
comm.Allgather(np.full(100, rank, dtype=np.float32), g)
report("Allgather", g)
a = np.empty(size * 10, dtype=np.int64)
comm.Alltoall(np.arange(size * 10, dtype=np.int64) + 100 * rank, a)
report("Alltoall", a)
rs = np.empty(50, dtype=np.float64)
comm.Reduce_scatter_block(np.arange(size * 50, dtype=np.float64) + rank, rs, op=MPI.SUM)
report("Reduce_scatter_block", rs)
obj = comm.bcast({"step": 3, "name": "weft"} if rank == 0 else None, root=0)
total = comm.allreduce(rank + 1, op=MPI.SUM)
if rank == 0:
    print(f"objects: {obj} {total}", flush=True)
comm.Barrier()
