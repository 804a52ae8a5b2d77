"""Run a demo the way a learner does, `torchrun ... -m MODULE`, with a deadline and its output tidied.

torchrun (`python -m torch.distributed.run`, PyTorch's elastic agent) starts the ranks, hosts their
rendezvous, stops every rank when one fails (SIGTERM, then SIGKILL) and prints which rank failed first
and why. Here the agent is torchrun's own entry point, `torch.distributed.run.main`, called with the
learner's arguments in a child process of this one (a fork where that is safe: no second import of
torch) whose output goes to a file. What this module adds for the build:

- a deadline: past it, the agent gets SIGTERM (what Ctrl-C or a cluster's time limit sends), which it
  passes on to every rank before it exits; an agent still running GRACE seconds later is killed, and its
  ranks with it (`ranks.die_with_agent`);
- output that reads the same from run to run: times, process ids, temporary folders and this machine's
  install paths are masked, and the agent's own traceback (re-raising the ranks' failure) is cut to one
  line; the ranks' output and torchrun's error report stay as they are.
"""

from __future__ import annotations

import ctypes
import json
import logging
import multiprocessing
import os
import re
import signal
import sys
import tempfile
import threading
import traceback
from pathlib import Path

from torch.distributed import run as torch_distributed_run

from snippets.phase25.distributed.ranks import AGENT, PR_SET_PDEATHSIG

ROOT = Path(__file__).resolve().parents[3]
DEADLINE = 120  # seconds for one torchrun command
GRACE = 40  # seconds the agent gets to stop its ranks after SIGTERM (it kills those still running after 30)
AGENT_TRACEBACK = re.compile(r"^Traceback \(most recent call last\):\n(?:  .*\n)+(?=\S*(?:ChildFailedError|SignalException))", re.M)
PID_OF_RANK = re.compile(r"rank\s*: (\d+) \(local_rank: \d+\)\n\s*exitcode\s*: -?\d+ \(pid: (\d+)\)")
MASKS = [
    (re.compile(r"^([IWE])\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ ", re.M), r"\1 "),  # torchrun's log lines: time, pid
    (re.compile(r"\[([IWE])\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ "), r"[\1 "),  # the same from torch's C++ code
    (re.compile(r"(time\s*: )\S+"), r"\1<time>"),
    (re.compile(r'("timestamp": )"\d+"'), r'\1"<time>"'),
    (re.compile(r"[^\s(]*/torchelastic_\w+/[\w-]+/"), "<tmp>/"),
    (re.compile(r"[^\s(]*/nmb-results-\w+/"), "<tmp>/"),  # the folder of measure()'s results
    (re.compile(r"(Current thread|Thread) 0x[0-9a-f]+"), r"\1 0x…"),
    (re.compile(r"Process \d+ got signal"), "Process <pid of the agent> got signal"),
    (re.compile(r"(Sending process )\d+"), r"\1<pid of a rank>"),  # where no report says which rank it ran
    (re.compile(r"[^\s\"']*/site-packages/"), ""),
    (re.compile(r"[^\s\"']*/bin/python[\d.]*"), "python"),
]


def standalone(module: str, *args, nproc: int = 2) -> list[str]:
    """torchrun's arguments for one node: --standalone hosts the rendezvous itself, on a free port."""
    return ["--standalone", f"--nproc-per-node={nproc}", "-m", module, *map(str, args)]


def multinode(module: str, *args, nnodes: int, nproc: int, endpoint: str, run_id: str,
              node_rank: int | None = None) -> list[str]:
    """The command every node runs: the agents meet at `endpoint` (host:port) under the c10d rendezvous
    named `run_id`, which gives each node its rank (a `node_rank` is passed on, for torchrun to judge)."""
    return [f"--nnodes={nnodes}", f"--nproc-per-node={nproc}",
            *([f"--node-rank={node_rank}"] if node_rank is not None else []), "--rdzv-backend=c10d",
            f"--rdzv-endpoint={endpoint}", f"--rdzv-id={run_id}", "-m", module, *map(str, args)]


def shown(arguments: list[str]) -> str:
    """The command line a learner types."""
    return "$ torchrun " + " ".join(arguments)


def named_threads() -> list[str] | None:
    """The names of this process's other native threads whose name differs from the calling thread's (a
    pool's threads keep the process's name; a TCPStore's server thread is `pt_tcpstore_uv`), which
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


def may_fork() -> bool:
    """Fork the agent (no second import of torch) only while no other Python thread and no native thread
    named otherwise than this one runs: a fork copies one thread, and a lock another thread held stays
    locked in the copy for ever. Unnamed pools are safe: OpenBLAS stops its own around fork()."""
    return threading.active_count() == 1 and named_threads() == []


def agent(arguments: list[str], folder: str, parent: int) -> None:
    """`torchrun ARGUMENTS` from the project's root, in a child of `parent` that Linux kills if `parent`
    dies: its output and its ranks' go to `folder`/torchrun.log, its temporary files into `folder`, and the
    error file of the rank that failed first is copied to `folder`/error.json (TORCHELASTIC_ERROR_FILE, where
    a job scheduler may collect it). An exception ends it as it ends the command: its traceback printed,
    exit code 1."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request above
        os._exit(1)
    log = os.open(Path(folder, "torchrun.log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    for fd, to in ((os.open(os.devnull, os.O_RDONLY), 0), (log, 1), (log, 2)):
        os.dup2(fd, to)
    sys.stdout, sys.stderr = (open(fd, "w", buffering=1, closefd=False) for fd in (1, 2))  # not a capture's
    for logger in [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]:
        for handler in getattr(logger, "handlers", []):
            if type(handler) is logging.StreamHandler:  # torch's own, not a file's nor a test runner's capture
                handler.setStream(sys.stderr)  # torch's log lines go where torchrun's stderr goes
    os.chdir(ROOT)
    tempfile.tempdir = folder
    os.environ.update({AGENT: str(os.getpid()), "TORCHELASTIC_ERROR_FILE": str(Path(folder, "error.json"))})
    try:
        torch_distributed_run.main(arguments)
    except BaseException:  # noqa: BLE001 - as the command ends: a traceback and exit code 1
        traceback.print_exc()
        sys.exit(1)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def start(arguments: list[str], folder: Path) -> multiprocessing.Process:
    """Start torchrun in a child process that writes into `folder`."""
    context = multiprocessing.get_context("fork" if may_fork() else "spawn")
    process = context.Process(target=agent, args=(arguments, str(folder), os.getpid()), name="torchrun")
    sys.stdout.flush()
    sys.stderr.flush()
    process.start()
    return process


def finish(process: multiprocessing.Process, folder: Path, deadline: float = DEADLINE) -> str:
    """What torchrun printed, once it has exited (past `deadline`, it is stopped with SIGTERM, then killed),
    and the error file it left, if any."""
    process.join(deadline)
    late = process.is_alive()
    if late:
        process.terminate()
        process.join(GRACE)
    if process.is_alive():
        process.kill()
        process.join()
    output = (folder / "torchrun.log").read_text(encoding="utf-8", errors="replace")
    if late:
        output += f"(torchrun stopped by the {deadline:g} s deadline, exit code {process.exitcode})\n"
    if (folder / "error.json").is_file():
        error = json.loads((folder / "error.json").read_text(encoding="utf-8"))
        output += f"\nThe error file torchrun left in TORCHELASTIC_ERROR_FILE:\n{json.dumps(error, indent=2)}\n"
    return output


def tidy(output: str) -> str:
    """The output with what changes between runs masked (see the module's docstring)."""
    for rank, pid in PID_OF_RANK.findall(output):
        output = re.sub(rf"(pid: |PID |process ){pid}\b", rf"\g<1><pid of rank {rank}>", output)
    output = AGENT_TRACEBACK.sub("(the agent's own traceback, re-raising the failure below)\n", output)
    for pattern, replacement in MASKS:
        output = pattern.sub(replacement, output)
    return output.replace(str(ROOT) + "/", "").strip("\n")


def run(arguments: list[str], deadline: float = DEADLINE) -> str:
    """The command line, then what torchrun and the ranks printed, tidied."""
    with tempfile.TemporaryDirectory(prefix="nmb-torchrun-") as folder:
        return tidy(shown(arguments) + "\n" + finish(start(arguments, Path(folder)), Path(folder), deadline))


def measure(module: str, *args, deadline: float = DEADLINE) -> tuple[str, list[dict]]:
    """(the tidied output, every rank's results) of `torchrun --standalone ... -m MODULE ARGS --json FILE`."""
    with tempfile.TemporaryDirectory(prefix="nmb-results-") as folder:
        results = Path(folder) / "ranks.json"
        output = run(standalone(module, *args, "--json", results), deadline)
        if not results.is_file():
            raise RuntimeError(f"torchrun wrote no results:\n{output}")
        return output, json.loads(results.read_text(encoding="utf-8"))
