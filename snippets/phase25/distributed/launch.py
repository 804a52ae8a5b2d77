"""Start one process per rank on this machine, collect what each returns, leave nothing behind.

The parent hosts the rendezvous store on a port the kernel picks (port 0), so two demos never
fight over a port. On CPU the ranks are forks of this process (no second import of torch), else fresh
interpreters. Every rank gets a deadline; if one rank fails or the deadline passes, every
rank is killed and the error names the rank and the exception its log ends with, or, for a rank that
was still running at the deadline, the calls it was stuck in.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

import torch
import torch.distributed as dist

from snippets.phase25.distributed import worker
from snippets.phase25.distributed.worker import STACK_SIGNAL

ROOT = Path(__file__).resolve().parents[3]
WORKER = "snippets/phase25/distributed/worker.py"  # as frames name it, relative to ROOT
POLL_SECONDS = 0.05
GRACE_SECONDS = 2.0  # after a failure, how long the other ranks get to exit by themselves
STACK_SECONDS = 5.0  # at the deadline, how long a rank gets to print where it is stuck
TORCH_ROOT = Path(torch.__file__).resolve().parents[1]
_EXCEPTION = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b:?")
_FRAME = re.compile(r'^\s*File "(.+)", line (\d+) in (\S+)$')


class RankFailed(RuntimeError):
    """A rank exited with an error or the demo ran past its deadline; `errors` maps each rank
    that failed to its exception, and each rank still running at the deadline to where it was stuck."""

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


def _exception(path: Path) -> str:
    """The exception a rank's log ends with, on one line and without torch's '[rankN]:' prefixes
    (a message spread over several lines is joined); the last line written when there is none."""
    lines = [re.sub(r"^\[rank\d+\]:", "", line).strip() for line in path.read_text(
        encoding="utf-8", errors="replace").splitlines()]
    lines = [line for line in lines if line]
    starts = [i for i, line in enumerate(lines) if _EXCEPTION.match(line)]
    return " ".join(lines[starts[-1]:]) if starts else (lines or [""])[-1]


def _short(path: str) -> str:
    """A frame's file relative to the project or to torch's site-packages."""
    resolved = Path(path).resolve()
    for base in (TORCH_ROOT, ROOT):
        if resolved.is_relative_to(base):
            return str(resolved.relative_to(base))
    return resolved.name


def _main_thread_frames(log: str) -> list[tuple[str, str]]:
    """(function, file:line) of the worker's main thread, innermost first, from the last faulthandler
    dump in a rank's log (one block per thread; the main thread's is the one that runs the worker)."""
    blocks, frames = [], None
    for line in log.splitlines():
        if line.endswith("(most recent call first):"):
            frames = []
            blocks.append(frames)
        elif frames is not None and (match := _FRAME.match(line)):
            frames.append((match.group(3), f"{_short(match.group(1))}:{match.group(2)}"))
    main = [b for b in blocks if any(where.startswith(WORKER) for _, where in b)]
    return main[-1] if main else []


def _where_stuck(frames: list[tuple[str, str]]) -> str:
    """The calls from the demo's innermost frame of its own down to where the rank was waiting."""
    own = [i for i, (_, where) in enumerate(frames) if where.startswith("snippets/") and not where.startswith(WORKER)]
    chain = frames[: own[0] + 1] if own else frames[:1]
    return "stuck in " + " < ".join(f"{function} ({where})" for function, where in chain)


def _stacks(processes: list[subprocess.Popen], folder: Path) -> dict[int, str]:
    """Ask every rank still running where it is (STACK_SIGNAL makes it print its stack to its log)."""
    running = [rank for rank, p in enumerate(processes) if p.poll() is None]
    for rank in running:
        os.kill(processes[rank].pid, STACK_SIGNAL)
    logs = {rank: folder / f"rank{rank}.log" for rank in running}
    deadline = time.monotonic() + STACK_SECONDS
    while time.monotonic() < deadline and not all(
            _main_thread_frames(log.read_text(encoding="utf-8", errors="replace")) for log in logs.values()):
        time.sleep(POLL_SECONDS)
    return {rank: _where_stuck(_main_thread_frames(log.read_text(encoding="utf-8", errors="replace")))
            for rank, log in logs.items()}


def _failure(processes: list[subprocess.Popen], folder: Path, reason: str, late: bool = False) -> RankFailed:
    """Give the other ranks a moment to exit, kill the rest, describe every rank that failed and,
    when the deadline passed (`late`), where each rank still running was stuck."""
    stuck = _stacks(processes, folder) if late else {}
    deadline = time.monotonic() + GRACE_SECONDS
    while not late and time.monotonic() < deadline and any(p.poll() is None for p in processes):
        time.sleep(POLL_SECONDS)
    failed = [rank for rank, p in enumerate(processes) if p.poll() not in (None, 0) and rank not in stuck]
    _stop(processes)
    errors = {rank: _exception(folder / f"rank{rank}.log") for rank in failed} | stuck
    lines = [reason] + [f"rank {rank}: {line}" for rank, line in sorted(errors.items())]
    return RankFailed("\n".join(lines), errors)


class Forked:
    """A rank forked from this process, polled and reaped like a subprocess.Popen."""

    def __init__(self, pid: int):
        self.pid, self.returncode = pid, None

    def poll(self) -> int | None:
        if self.returncode is None:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self) -> int:
        if self.returncode is None:
            self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return self.returncode


def named_threads() -> list[str] | None:
    """The names of this process's other native threads whose name differs from the calling thread's
    (a pool's threads keep the process's name; a TCPStore's server thread is `pt_tcpstore_uv`), which
    threading.active_count() does not see; None where the system does not list them (no /proc)."""
    tasks = Path("/proc/self/task")
    if not tasks.is_dir():
        return None
    own, names = str(threading.get_native_id()), {}
    for task in tasks.iterdir():
        try:
            names[task.name] = (task / "comm").read_text().strip()
        except OSError:  # the thread ended meanwhile
            continue
    main = names.pop(own, None)
    return sorted(name for name in names.values() if name != main)


def may_fork(backend: str) -> bool:
    """Fork the ranks (no second import of torch) only on CPU, and while no other Python thread and no
    native thread named otherwise than this one runs: a fork copies one thread, and a lock another thread
    held stays locked in the copy for ever. Unnamed pools are safe: OpenBLAS stops its own around fork(),
    and a rank runs one thread. Where threads cannot be listed, ranks are fresh interpreters."""
    return backend == "gloo" and threading.active_count() == 1 and named_threads() == []


def fork_rank(spec: dict, log: Path) -> Forked:
    """A rank as a fork of this process: what `python -m ...worker SPEC` does, without importing torch."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return Forked(pid)
    try:
        target, null = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), os.open(os.devnull, os.O_RDONLY)
        for fd, to in ((null, 0), (target, 1), (target, 2)):
            os.dup2(fd, to)
        sys.stdout, sys.stderr = (open(fd, "w", buffering=1, closefd=False) for fd in (1, 2))  # not a capture's
        os.environ.update(rank_env(spec["backend"]))
        worker.main([json.dumps(spec)])  # exits the process
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stderr.flush()
        os._exit(1)


def spawn_rank(spec: dict, log: Path) -> subprocess.Popen:
    """A rank as a fresh interpreter: `python -m snippets.phase25.distributed.worker SPEC`."""
    with open(log, "wb") as out:
        return subprocess.Popen([sys.executable, "-m", "snippets.phase25.distributed.worker", json.dumps(spec)],
                                cwd=ROOT, env=rank_env(spec["backend"]), stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT)


def run_ranks(function, world_size: int = 2, backend: str = "gloo", timeout: float = 120.0,
              **kwargs) -> list[dict]:
    """Run `function(device, **kwargs)` on `world_size` ranks; the list of what each returned.

    `function` must be a module-level function returning JSON-serialisable data.
    """
    listener = socket.create_server(("127.0.0.1", 0))  # the store's port, picked by the kernel
    start = fork_rank if may_fork(backend) else spawn_rank
    with tempfile.TemporaryDirectory(prefix="nmb-ranks-") as folder:
        folder = Path(folder)
        processes, store = [], None
        try:
            for rank in range(world_size):
                spec = {"module": function.__module__, "function": function.__name__, "kwargs": kwargs,
                        "rank": rank, "world_size": world_size, "backend": backend,
                        "port": listener.getsockname()[1], "timeout": timeout, "parent": os.getpid(),
                        "result": str(folder / f"rank{rank}.json")}
                processes.append(start(spec, folder / f"rank{rank}.log"))
            store = dist.TCPStore("127.0.0.1", spec["port"], world_size + 1, is_master=True,  # serves till the end
                                  wait_for_workers=False, master_listen_fd=listener.detach(),
                                  timeout=datetime.timedelta(seconds=timeout))
            deadline = time.monotonic() + timeout
            while (codes := [p.poll() for p in processes]) != [0] * world_size:
                if any(code not in (None, 0) for code in codes):
                    raise _failure(processes, folder, f"{function.__name__} failed; every rank was stopped")
                if time.monotonic() > deadline:
                    raise _failure(processes, folder, f"{function.__name__} ran past {timeout:g} s; "
                                                      "every rank was killed", late=True)
                time.sleep(POLL_SECONDS)
            return [json.loads((folder / f"rank{rank}.json").read_text()) for rank in range(world_size)]
        finally:
            _stop(processes)
            listener.close()
            store = None  # the store and its server thread go now, not when an error's traceback does
