"""What torchrun does when a demo goes wrong: a rank that raises, a rank that never arrives, ranks that stall.

Run one case with `torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.faults CASE`.
"""

from __future__ import annotations

import sys
import time

import torch
import torch.distributed as dist

from snippets.phase25.distributed import ranks, torchrun

ISOLATE = True
TIMEOUT = 180
GROUP_TIMEOUT = 3  # seconds: how long rank 0 waits in the collective before the process group gives up
STALL_DEADLINE = 25  # seconds: the outer deadline of the case that nothing inside the process group ends


def crash(device: torch.device) -> dict:
    """Rank 1 raises while rank 0 is still busy with its step."""
    if dist.get_rank() == 1:
        raise ValueError("rank 1 fails on purpose")
    time.sleep(60)
    return {}


def hang(device: torch.device) -> dict:
    """Rank 1 never reaches the collective that rank 0 waits in."""
    if dist.get_rank() == 1:
        time.sleep(60)
    dist.barrier()
    return {}


def stall(device: torch.device) -> dict:
    """Both ranks are busy outside any collective: no process group timeout can fire."""
    time.sleep(600)
    return {}


CASES = {"crash": crash, "hang": hang, "stall": stall}


def main():
    print(torchrun.run(torchrun.standalone(__name__, "crash")))
    print(torchrun.run(torchrun.standalone(__name__, "hang")))


def outer_deadline():
    print(torchrun.run(torchrun.standalone(__name__, "stall"), deadline=STALL_DEADLINE))


if __name__ == "__main__":
    ranks.run(CASES[sys.argv[1]], lambda results: "every rank finished", timeout=GROUP_TIMEOUT)
