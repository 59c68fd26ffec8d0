"""weft as a torch.distributed backend, under mpiexec at 1-4 ranks.

Every collective and op against a local reference (every rank's input is a function of its
rank, so each rank computes the expected result itself) and, where Gloo serves the same call,
against torch's own Gloo backend on the same tensors: dtypes, non-contiguous tensors, uneven
alltoall splits, sub-groups, async work waited out of order, point-to-point rings, and error
cases. Prints one summary line on rank 0; exits non-zero on any rank's failure.
  mpiexec -n 3 /usr/bin/python3 tests/torch/test_backend.py   (PYTHONPATH: the built weft_torch)
"""
import os
import sys
import traceback
import warnings

import torch
import torch.distributed as dist

import weft_torch

# torch 1.13 warns that all_reduce_coalesced will be deprecated; the backend still serves it.
warnings.filterwarnings("ignore", category=UserWarning, module="torch.distributed")

RANK, SIZE = weft_torch.mpi_world()
os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29611")
dist.init_process_group("weft", init_method="env://", rank=RANK, world_size=SIZE)
GLOO = dist.new_group(backend="gloo")

INTS = [torch.int8, torch.uint8, torch.int32, torch.int64]
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
OPS = {"sum": dist.ReduceOp.SUM, "product": dist.ReduceOp.PRODUCT, "min": dist.ReduceOp.MIN,
       "max": dist.ReduceOp.MAX, "avg": dist.ReduceOp.AVG}
passed, failed = 0, []


def case(name, ok, why=""):
    global passed
    if ok:
        passed += 1
    else:
        failed.append(name)
        print("[rank %d] FAIL %s %s" % (RANK, name, why), file=sys.stderr)


def run(name, body):
    try:
        body()
    except Exception:  # a failure of one case must not stop the others
        case(name, False, traceback.format_exc())


def inp(rank, dtype, n, op="sum"):
    """Rank's input: small values, so sums and products stay exact in every dtype."""
    i = torch.arange(n, dtype=torch.float64)
    if op == "product":
        v = 1.0 + ((i + rank) % 2)  # 1 or 2
    elif dtype == torch.uint8:
        v = (i * 3 + rank * 5) % 11
    else:
        v = ((i * 3 + rank * 5) % 11) - 5
    if dtype.is_floating_point:
        v = v * 0.25 if op != "product" else v
    return v.to(dtype)


def reference(op, dtype, n, ranks):
    vals = torch.stack([inp(r, dtype, n, op).to(torch.float64) for r in ranks])
    out = {"sum": vals.sum(0), "product": vals.prod(0), "min": vals.min(0).values,
           "max": vals.max(0).values, "avg": vals.mean(0)}[op]
    return out.to(dtype)


def close(got, want):
    if got.dtype.is_floating_point:
        tol = 1e-2 if got.dtype in (torch.float16, torch.bfloat16) else 1e-6
        return torch.allclose(got.to(torch.float64), want.to(torch.float64), rtol=tol, atol=tol)
    return torch.equal(got, want)


def test_all_reduce():
    for dtype in INTS + FLOATS:
        for op in OPS:
            if op == "avg" and not dtype.is_floating_point:
                continue
            name = "all_reduce %s %s" % (dtype, op)

            def body():
                t = inp(RANK, dtype, 37, op)
                dist.all_reduce(t, op=OPS[op])
                case(name, close(t, reference(op, dtype, 37, range(SIZE))), str(t))
                if op != "avg" and dtype != torch.bfloat16:  # what Gloo serves too
                    g = inp(RANK, dtype, 37, op)
                    dist.all_reduce(g, op=OPS[op], group=GLOO)
                    case(name + " == gloo", close(t, g), "weft %s gloo %s" % (t, g))
            run(name, body)


def test_layouts():
    def non_contiguous():
        base = torch.zeros(6, 8)
        view = base[:, ::2]  # every other column: not contiguous
        view.copy_(inp(RANK, torch.float32, 24).view(6, 4))
        dist.all_reduce(view)
        want = reference("sum", torch.float32, 24, range(SIZE)).view(6, 4)
        case("all_reduce non-contiguous", torch.equal(view, want) and base[:, 1::2].eq(0).all())
    run("non-contiguous", non_contiguous)

    def coalesced():
        ts = [inp(RANK, torch.float32, 5), inp(RANK, torch.float32, 9)]
        dist.all_reduce_coalesced(ts)
        case("all_reduce_coalesced", close(ts[0], reference("sum", torch.float32, 5, range(SIZE)))
             and close(ts[1], reference("sum", torch.float32, 9, range(SIZE))))
    run("coalesced", coalesced)


def test_rooted():
    for root in sorted({0, SIZE - 1}):
        def body():
            t = inp(RANK, torch.int32, 13) if RANK == root else torch.zeros(13, dtype=torch.int32)
            dist.broadcast(t, root)
            case("broadcast root %d" % root, torch.equal(t, inp(root, torch.int32, 13)))
            g = inp(RANK, torch.int32, 13) if RANK == root else torch.zeros(13, dtype=torch.int32)
            dist.broadcast(g, root, group=GLOO)
            case("broadcast root %d == gloo" % root, torch.equal(t, g))
            r = inp(RANK, torch.float64, 11)
            dist.reduce(r, root, op=dist.ReduceOp.MAX)
            if RANK == root:
                case("reduce max root %d" % root, close(r, reference("max", torch.float64, 11, range(SIZE))))
            mine = inp(RANK, torch.int64, 7)
            outs = [torch.zeros(7, dtype=torch.int64) for _ in range(SIZE)] if RANK == root else None
            dist.gather(mine, outs, dst=root)
            if RANK == root:
                case("gather root %d" % root, all(torch.equal(outs[p], inp(p, torch.int64, 7)) for p in range(SIZE)))
            got = torch.zeros(6, dtype=torch.float16)
            ins = [inp(p, torch.float16, 6) for p in range(SIZE)] if RANK == root else None
            dist.scatter(got, ins, src=root)
            case("scatter root %d" % root, torch.equal(got, inp(RANK, torch.float16, 6)))
        run("rooted %d" % root, body)


def test_gather_family():
    def body():
        outs = [torch.zeros(5, dtype=torch.bfloat16) for _ in range(SIZE)]
        dist.all_gather(outs, inp(RANK, torch.bfloat16, 5))
        case("all_gather list", all(torch.equal(outs[p], inp(p, torch.bfloat16, 5)) for p in range(SIZE)))
        flat = torch.zeros(SIZE * 4, dtype=torch.int32)
        dist.all_gather_into_tensor(flat, inp(RANK, torch.int32, 4))  # _allgather_base
        want = torch.cat([inp(p, torch.int32, 4) for p in range(SIZE)])
        case("all_gather_into_tensor", torch.equal(flat, want))
        out = torch.zeros(3, dtype=torch.float32)
        dist.reduce_scatter(out, [inp(RANK, torch.float32, 3 * SIZE)[3 * p:3 * p + 3] for p in range(SIZE)])
        full = reference("sum", torch.float32, 3 * SIZE, range(SIZE))
        case("reduce_scatter list", close(out, full[3 * RANK:3 * RANK + 3]))
        # In place, as FSDP calls them: the input is this rank's slice of the output (allgather)
        # or the output is this rank's block of the input (reduce_scatter).
        whole = torch.zeros(SIZE * 6, dtype=torch.float32)
        whole[6 * RANK:6 * RANK + 6] = inp(RANK, torch.float32, 6)
        dist.all_gather_into_tensor(whole, whole[6 * RANK:6 * RANK + 6])
        case("all_gather_into_tensor in place",
             torch.equal(whole, torch.cat([inp(p, torch.float32, 6) for p in range(SIZE)])))
        big = inp(RANK, torch.float32, 4 * SIZE)
        dist.reduce_scatter_tensor(big[4 * RANK:4 * RANK + 4], big)
        full3 = reference("sum", torch.float32, 4 * SIZE, range(SIZE))
        case("reduce_scatter_tensor in place", close(big[4 * RANK:4 * RANK + 4], full3[4 * RANK:4 * RANK + 4]))
        gl = [torch.zeros(5, dtype=torch.float32) for _ in range(SIZE)]
        dist.all_gather(gl, inp(RANK, torch.float32, 5), group=GLOO)
        wf = [torch.zeros(5, dtype=torch.float32) for _ in range(SIZE)]
        dist.all_gather(wf, inp(RANK, torch.float32, 5))
        case("all_gather == gloo", all(torch.equal(a, b) for a, b in zip(wf, gl)))
        out2 = torch.zeros(2, dtype=torch.float64)
        dist.reduce_scatter_tensor(out2, inp(RANK, torch.float64, 2 * SIZE), op=dist.ReduceOp.MIN)
        full2 = reference("min", torch.float64, 2 * SIZE, range(SIZE))
        case("reduce_scatter_tensor min", close(out2, full2[2 * RANK:2 * RANK + 2]))
    run("gather family", body)


def test_alltoall():
    def body():
        # Equal splits: block p of every rank's input goes to rank p.
        x = torch.arange(SIZE * 3, dtype=torch.float32) + 100 * RANK
        y = torch.zeros_like(x)
        dist.all_to_all_single(y, x)
        want = torch.cat([torch.arange(3 * RANK, 3 * RANK + 3, dtype=torch.float32) + 100 * p for p in range(SIZE)])
        case("all_to_all_single equal", torch.equal(y, want))
        # Uneven splits (rows of 2 elements): rank r sends r+p+1 rows to rank p.
        send_rows = [RANK + p + 1 for p in range(SIZE)]
        recv_rows = [p + RANK + 1 for p in range(SIZE)]
        xs = torch.cat([torch.full((n, 2), float(RANK * 10 + p)) for p, n in enumerate(send_rows)])
        ys = torch.zeros(sum(recv_rows), 2)
        dist.all_to_all_single(ys, xs, recv_rows, send_rows)
        want = torch.cat([torch.full((n, 2), float(p * 10 + RANK)) for p, n in enumerate(recv_rows)])
        case("all_to_all_single uneven", torch.equal(ys, want))
        Gloo = torch.zeros_like(ys)
        dist.all_to_all_single(Gloo, xs, recv_rows, send_rows, group=GLOO)
        case("all_to_all_single uneven == gloo", torch.equal(ys, Gloo))
        ins = [torch.full((p + 1,), RANK * 10 + p, dtype=torch.int64) for p in range(SIZE)]
        outs = [torch.zeros(RANK + 1, dtype=torch.int64) for _ in range(SIZE)]
        dist.all_to_all(outs, ins)
        case("all_to_all list", all(torch.equal(outs[p], torch.full((RANK + 1,), p * 10 + RANK, dtype=torch.int64)) for p in range(SIZE)))
    run("alltoall", body)


def test_async_and_p2p():
    def body():
        ts = [inp(RANK, torch.float32, 50 + k) for k in range(4)]
        works = [dist.all_reduce(t, async_op=True) for t in ts]
        for k in reversed(range(4)):  # waited out of order
            works[k].wait()
        case("async all_reduce waited last first",
             all(close(ts[k], reference("sum", torch.float32, 50 + k, range(SIZE))) for k in range(4)))
        b = inp(RANK, torch.int32, 9)
        w = dist.broadcast(b, 0, async_op=True)
        while not w.is_completed():
            pass
        case("async broadcast is_completed loop", torch.equal(b, inp(0, torch.int32, 9)))
        dist.barrier()
        nxt, prv = (RANK + 1) % SIZE, (RANK - 1) % SIZE
        out, got = inp(RANK, torch.float64, 17), torch.zeros(17, dtype=torch.float64)
        reqs = [dist.isend(out, nxt), dist.irecv(got, prv)]  # a ring: deadlocks if sends block
        for r in reqs:
            r.wait()
        case("isend/irecv ring", torch.equal(got, inp(prv, torch.float64, 17)))
        got2 = torch.zeros(17, dtype=torch.float64)
        ops = [dist.P2POp(dist.isend, out, nxt), dist.P2POp(dist.irecv, got2, prv)]
        for r in dist.batch_isend_irecv(ops):
            r.wait()
        case("batch_isend_irecv ring", torch.equal(got2, inp(prv, torch.float64, 17)))
    run("async and p2p", body)


def test_subgroup():
    members = sorted({0, SIZE - 1})
    sub = dist.new_group(members, backend="weft")
    if RANK not in members:
        return
    def body():
        t = inp(RANK, torch.int64, 8)
        dist.all_reduce(t, group=sub)
        case("sub-group all_reduce", torch.equal(t, reference("sum", torch.int64, 8, members)))
        case("sub-group rank", dist.get_rank(sub) == members.index(RANK))
    run("subgroup", body)


def test_errors():
    def body():
        for name, call in [("BAND", lambda: dist.all_reduce(torch.ones(3, dtype=torch.int32), op=dist.ReduceOp.BAND)),
                           ("bool", lambda: dist.all_reduce(torch.ones(3, dtype=torch.bool))),
                           ("int16", lambda: dist.broadcast(torch.ones(3, dtype=torch.int16), 0))]:
            try:
                call()
                case("error: %s raises" % name, False)
            except (RuntimeError, ValueError) as e:
                case("error: %s raises" % name, "weft backend" in str(e), str(e))
        # Ranks that disagree on the dtype: WEFT_CHECK_ARGS=1 makes every rank raise.
        if os.environ.get("WEFT_CHECK_ARGS") == "1" and SIZE > 1:
            t = torch.ones(4, dtype=torch.float32 if RANK == 0 else torch.float64)
            try:
                dist.all_reduce(t)
                case("error: dtype mismatch raises on every rank", False)
            except RuntimeError as e:
                case("error: dtype mismatch raises on every rank", "weft backend" in str(e), str(e))
            u = torch.ones(4)
            dist.all_reduce(u)
            case("after a mismatch the group still works", torch.equal(u, torch.full((4,), float(SIZE))))
    run("errors", body)


for test in [test_all_reduce, test_layouts, test_rooted, test_gather_family, test_alltoall,
             test_async_and_p2p, test_subgroup, test_errors]:
    test()

counts = torch.tensor([passed, len(failed)], dtype=torch.int64)
dist.all_reduce(counts, group=GLOO)
if RANK == 0:
    print("weft torch backend: %d ranks, %d cases passed, %d failed (over all ranks)"
          % (SIZE, counts[0].item(), counts[1].item()))
dist.destroy_process_group()
sys.exit(1 if counts[1].item() > 0 or counts[0].item() == 0 else 0)
