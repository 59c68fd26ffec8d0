"""weft as a torch.distributed backend.

    import weft_torch  # registers the backend "weft"
    torch.distributed.init_process_group("weft", ...)

Run under mpiexec or weftrun (one process per rank): the backend initialises MPI if the
program did not, and checks that torch's rank and world size are MPI's. torch's store is used
only to learn which world ranks a sub-group (new_group) holds.
"""
import atexit

import torch.distributed as dist

from . import _C

__all__ = ["mpi_world"]


def mpi_world():
    """(rank, size) in MPI_COMM_WORLD; initialises MPI if needed."""
    return _C.mpi_world()


def _create(store, group_rank, group_size, timeout):
    world_rank, world_size = _C.mpi_world()
    if group_size == world_size and group_rank == world_rank:
        ranks = list(range(world_size))  # the default group, or a group of everyone
    else:
        # torch passes a group's own rank and size only: its members learn each other's MPI
        # world ranks through the group's (prefixed) store.
        store.set("weft_world_rank_%d" % group_rank, str(world_rank))
        ranks = [int(store.get("weft_world_rank_%d" % r)) for r in range(group_size)]
    if len(set(ranks)) != len(ranks) or max(ranks) >= world_size:
        raise RuntimeError(
            "weft backend: torch's rank %d of %d is MPI's rank %d of %d: launch with mpiexec or "
            "weftrun, one process per rank (torchrun starts processes that are not one MPI job)"
            % (group_rank, group_size, world_rank, world_size))
    return _C.create_process_group(group_rank, group_size, ranks)


if "WEFT" not in dist.Backend._plugins:
    dist.Backend.register_backend("weft", _create)
atexit.register(_C.shutdown)
