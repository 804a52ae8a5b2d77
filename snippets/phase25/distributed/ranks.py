"""What every rank of a demo does under torchrun: join the group, run the demo, report on rank 0.

torchrun puts each process's place in its environment (RANK, LOCAL_RANK, WORLD_SIZE, GROUP_RANK for the
node, MASTER_ADDR and MASTER_PORT for the store its rendezvous set up), and `init_process_group` reads it
from there. What torchrun does not do is bring the ranks' results together: here every rank returns a
dict, and rank 0 gathers them in rank order and prints the demo's report, so a run prints one report,
not one interleaved stream per rank.
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import faulthandler
import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import torch
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record

GROUP_TIMEOUT = 60  # seconds a collective may wait for the other ranks before it raises
AGENT = "NMB_TORCHRUN_AGENT"  # the agent's process id, where snippets.phase25.distributed.torchrun started it
PR_SET_PDEATHSIG = 1


def die_with_agent() -> None:
    """Ask Linux to kill this rank when its torchrun agent dies, however it dies: torchrun starts every
    rank in a session of its own, where nothing aimed at the agent's process group reaches it."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.environ.get(AGENT, str(os.getppid())) != str(os.getppid()):  # the agent died before the request
        os._exit(1)


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


def launched() -> str:
    """How this process was started: by torchrun (its agent leaves TORCHELASTIC_RUN_ID), how many nodes, how many processes on each."""
    launcher = "torchrun" if "TORCHELASTIC_RUN_ID" in os.environ else "a launcher other than torchrun"
    nodes, per_node = int(os.environ["GROUP_WORLD_SIZE"]), int(os.environ["LOCAL_WORLD_SIZE"])
    return f"started by {launcher}: {nodes} node{'s' if nodes > 1 else ''} x {per_node} processes per node"


def arguments(description: str) -> argparse.ArgumentParser:
    """A demo's command line: its own options, and `--json FILE` for every rank's results."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--json", type=Path, help="rank 0 also writes every rank's results to this file")
    return parser


@record
def run(demo: Callable[..., dict], report: Callable[[list[dict]], str], timeout: float = GROUP_TIMEOUT,
        results: Path | None = None, **kwargs) -> None:
    """One rank: `demo(device, **kwargs)`, every rank's result gathered on rank 0, which prints
    `report(results)` (and writes them to `results` as JSON, when given).

    `@record` writes an exception's traceback where torchrun's error report finds it. When torchrun
    stops a rank (SIGTERM), faulthandler first prints where that rank was."""
    die_with_agent()
    faulthandler.register(signal.SIGTERM, chain=True)
    # one thread per rank, as torchrun sets for several ranks per node (OMP_NUM_THREADS=1) but not for
    # one: with more threads a matmul adds its terms in another order, and the bits would depend on the layout
    torch.set_num_threads(1)
    device = join(timeout)
    torch.manual_seed(0)
    mine = demo(device, **kwargs)
    gathered = [None] * dist.get_world_size() if dist.get_rank() == 0 else None
    dist.gather_object(mine, gathered, dst=0)
    if gathered is not None:
        if results:
            Path(results).write_text(json.dumps(gathered), encoding="utf-8")
        print(report(gathered), flush=True)
    dist.destroy_process_group()
