"""Start one process per rank on this machine, collect what each returns, leave nothing behind.

The parent hosts the rendezvous store on a port the kernel picks (port 0), so two demos never
fight over a port. Every rank gets a deadline; if one rank fails or the deadline passes, every
rank is killed and the error names the rank and shows the end of its log.
"""

from __future__ import annotations

import datetime
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch.distributed as dist

ROOT = Path(__file__).resolve().parents[3]
POLL_SECONDS = 0.05
GRACE_SECONDS = 2.0  # after a failure, how long the other ranks get to exit by themselves


class RankFailed(RuntimeError):
    """A rank exited with an error or the demo ran past its deadline; `errors` maps each rank
    that failed to the last line of its log."""

    def __init__(self, message: str, errors: dict[int, str]):
        super().__init__(message)
        self.errors = errors


def rank_env(backend: str) -> dict[str, str]:
    """Environment of a rank: the project importable, one thread, collectives on loopback."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env["OMP_NUM_THREADS"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    env["GLOO_SOCKET_IFNAME" if backend == "gloo" else "NCCL_SOCKET_IFNAME"] = "lo"
    return env


def _stop(processes: list[subprocess.Popen]) -> None:
    """Kill every rank still running and reap it (no zombie, no orphan)."""
    for process in processes:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
    for process in processes:
        process.wait()


def _last_line(path: Path) -> str:
    """The last line a rank wrote, without torch's '[rankN]:' prefix: usually its exception."""
    lines = path.read_text(encoding="utf-8", errors="replace").strip().splitlines() or [""]
    return lines[-1].split("]: ", 1)[-1] if lines[-1].startswith("[rank") else lines[-1]


def _failure(processes: list[subprocess.Popen], folder: Path, reason: str) -> RankFailed:
    """Give the other ranks a moment to exit, kill the rest, describe every rank that failed."""
    deadline = time.monotonic() + GRACE_SECONDS
    while time.monotonic() < deadline and any(p.poll() is None for p in processes):
        time.sleep(POLL_SECONDS)
    failed = [rank for rank, p in enumerate(processes) if p.poll() not in (None, 0)]
    _stop(processes)
    errors = {rank: _last_line(folder / f"rank{rank}.log") for rank in failed}
    lines = [reason] + [f"rank {rank}: {line}" for rank, line in errors.items()]
    return RankFailed("\n".join(lines), errors)


def run_ranks(function, world_size: int = 2, backend: str = "gloo", timeout: float = 120.0,
              **kwargs) -> list[dict]:
    """Run `function(device, **kwargs)` on `world_size` ranks; the list of what each returned.

    `function` must be a module-level function returning JSON-serialisable data.
    """
    store = dist.TCPStore("127.0.0.1", 0, world_size + 1, is_master=True, wait_for_workers=False,
                          timeout=datetime.timedelta(seconds=timeout))
    with tempfile.TemporaryDirectory(prefix="nmb-ranks-") as folder:
        folder = Path(folder)
        processes = []
        try:
            for rank in range(world_size):
                spec = {"module": function.__module__, "function": function.__name__, "kwargs": kwargs,
                        "rank": rank, "world_size": world_size, "backend": backend, "port": store.port,
                        "timeout": timeout, "parent": os.getpid(), "result": str(folder / f"rank{rank}.json")}
                with open(folder / f"rank{rank}.log", "wb") as log:
                    processes.append(subprocess.Popen(
                        [sys.executable, "-m", "snippets.phase25.distributed.worker", json.dumps(spec)],
                        cwd=ROOT, env=rank_env(backend), stdin=subprocess.DEVNULL,
                        stdout=log, stderr=subprocess.STDOUT))
            deadline = time.monotonic() + timeout
            while any(p.poll() is None for p in processes):
                if any(p.poll() not in (None, 0) for p in processes):
                    raise _failure(processes, folder, f"{function.__name__} failed; every rank was stopped")
                if time.monotonic() > deadline:
                    raise _failure(processes, folder, f"{function.__name__} ran past {timeout:g} s; "
                                                      "every rank was killed")
                time.sleep(POLL_SECONDS)
            if any(p.returncode != 0 for p in processes):
                raise _failure(processes, folder, f"{function.__name__} failed")
            return [json.loads((folder / f"rank{rank}.json").read_text()) for rank in range(world_size)]
        finally:
            _stop(processes)
