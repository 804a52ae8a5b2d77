"""What every rank of a demo does under torchrun: join the group, run the demo, report on rank 0.

torchrun puts each process's place in its environment (RANK, LOCAL_RANK, WORLD_SIZE, GROUP_RANK for the
node, MASTER_ADDR and MASTER_PORT for the store its rendezvous set up), and `init_process_group` reads it
from there. What torchrun does not do is bring the ranks' results together: here every rank returns a
dict, and rank 0 gathers them in rank order and prints the demo's report, so a run prints one report,
not one interleaved stream per rank.
"""

from __future__ import annotations

import datetime
import faulthandler
import os
import signal
from collections.abc import Callable

import torch
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record

GROUP_TIMEOUT = 60  # seconds a collective may wait for the other ranks before it raises


def join(timeout: float = GROUP_TIMEOUT) -> torch.device:
    """Join the process group torchrun described: NCCL and one GPU per rank where there are GPUs, gloo on CPU."""
    limit = datetime.timedelta(seconds=timeout)
    if torch.cuda.is_available():
        device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
        torch.cuda.set_device(device)
        dist.init_process_group("nccl", timeout=limit, device_id=device)
    else:
        device = torch.device("cpu")
        dist.init_process_group("gloo", timeout=limit)
    return device


def place() -> dict[str, int]:
    """Where torchrun put this process: its global rank, its node and its rank on that node."""
    return {"rank": dist.get_rank(), "node": int(os.environ["GROUP_RANK"]), "local_rank": int(os.environ["LOCAL_RANK"])}


@record
def run(demo: Callable[..., dict], report: Callable[[list[dict]], str], timeout: float = GROUP_TIMEOUT,
        **kwargs) -> None:
    """One rank: `demo(device, **kwargs)`, every rank's result gathered on rank 0, which prints `report(results)`.

    `@record` writes an exception's traceback where torchrun's error report finds it. When torchrun
    stops a rank (SIGTERM), faulthandler first prints where that rank was."""
    faulthandler.register(signal.SIGTERM, chain=True)
    # one thread per rank, as torchrun sets for several ranks per node (OMP_NUM_THREADS=1) but not for
    # one: with more threads a matmul adds its terms in another order, and the bits would depend on the layout
    torch.set_num_threads(1)
    device = join(timeout)
    torch.manual_seed(0)
    result = demo(device, **kwargs)
    results = [None] * dist.get_world_size() if dist.get_rank() == 0 else None
    dist.gather_object(result, results, dst=0)
    if results is not None:
        print(report(results), flush=True)
    dist.destroy_process_group()
