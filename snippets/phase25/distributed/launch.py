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


class RankFailed(RuntimeError):
    """A rank exited with an error or the demo ran past its deadline."""


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


def _tail(path: Path, lines: int = 30) -> str:
    text = path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""
    return "\n".join(text.splitlines()[-lines:])


def run_ranks(function, world_size: int = 2, backend: str = "gloo", timeout: float = 60.0,
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
                spec = {"parent": os.getpid(), "module": function.__module__, "function": function.__name__, "rank": rank,
                        "world_size": world_size, "port": store.port, "backend": backend,
                        "timeout": timeout, "result": str(folder / f"rank{rank}.json"), "kwargs": kwargs}
                with open(folder / f"rank{rank}.log", "wb") as log:
                    processes.append(subprocess.Popen(
                        [sys.executable, "-m", "snippets.phase25.distributed.worker", json.dumps(spec)],
                        cwd=ROOT, env=rank_env(backend), stdin=subprocess.DEVNULL,
                        stdout=log, stderr=subprocess.STDOUT))
            deadline = time.monotonic() + timeout
            while any(p.poll() is None for p in processes):
                for rank, process in enumerate(processes):
                    if process.poll() not in (None, 0):
                        raise RankFailed(f"rank {rank} exited with status {process.returncode}:\n"
                                         + _tail(folder / f"rank{rank}.log"))
                if time.monotonic() > deadline:
                    raise RankFailed(f"{function.__name__} ran past {timeout:g} s; every rank was killed")
                time.sleep(POLL_SECONDS)
            for rank, process in enumerate(processes):
                if process.returncode != 0:
                    raise RankFailed(f"rank {rank} exited with status {process.returncode}:\n"
                                     + _tail(folder / f"rank{rank}.log"))
            return [json.loads((folder / f"rank{rank}.json").read_text()) for rank in range(world_size)]
        finally:
            _stop(processes)
