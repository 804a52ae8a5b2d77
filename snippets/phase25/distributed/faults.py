"""What the launcher does when a demo goes wrong: a rank that crashes, a rank that hangs."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import torch
import torch.distributed as dist

from snippets.phase25.distributed.launch import RankFailed, run_ranks

ISOLATE = True
TIMEOUT = 180


def _note_pid(folder: str) -> None:
    Path(folder, f"{os.getpid()}.pid").touch()


def crash_rank(device: torch.device, folder: str) -> dict:
    """Rank 1 raises while rank 0 waits for it in a collective."""
    _note_pid(folder)
    if dist.get_rank() == 1:
        raise ValueError("rank 1 fails on purpose")
    dist.barrier()
    return {}


def hang_rank(device: torch.device, folder: str) -> dict:
    """Rank 1 never arrives; rank 0 waits for it in a collective."""
    _note_pid(folder)
    if dist.get_rank() == 1:
        time.sleep(3600)
    dist.barrier()
    return {}


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie waiting to be reaped counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def provoke(function, timeout: float) -> tuple[RankFailed | None, int, int]:
    """(the launcher's error, ranks started, ranks still alive afterwards)."""
    with tempfile.TemporaryDirectory() as folder:
        try:
            run_ranks(function, timeout=timeout, folder=folder)
            error = None
        except RankFailed as failure:
            error = failure
        pids = [int(p.stem) for p in Path(folder).glob("*.pid")]
        return error, len(pids), sum(alive(pid) for pid in pids)


def main():
    error, started, left = provoke(crash_rank, timeout=120)
    print(f"crash_rank: {str(error).splitlines()[0]}")
    print(f"  rank 1 said: {error.errors[1]}")
    print(f"  ranks started {started}, still running afterwards {left}")
    error, started, left = provoke(hang_rank, timeout=5)
    print(f"hang_rank: {str(error).splitlines()[0]}")
    for rank, where in sorted(error.errors.items()):
        print(f"  rank {rank} was {where}")
    print(f"  ranks started {started}, still running afterwards {left}")


def claim_crash_and_hang(main):
    """#robustness: one rank raises while the other waits in a collective, and one rank never arrives at all; the error names each failed rank with the last line it wrote, or where each rank was stuck, and no rank is left running."""
    crash, hang = main.between("crash_rank:", "hang_rank:"), main.between("hang_rank:")
    return ("rank 1 said: ValueError" in crash.text and "was stuck in barrier" in hang.line("rank 0 was stuck")
            and "rank 1 was stuck in hang_rank" in hang.text and main.count("still running afterwards 0") == 2)
