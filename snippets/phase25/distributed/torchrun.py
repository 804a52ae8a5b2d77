"""Run a demo the way a learner does, `torchrun ... -m MODULE`, with an outer deadline and its output tidied.

torchrun (`python -m torch.distributed.run`, PyTorch's elastic agent) starts the ranks, hosts their
rendezvous, stops every rank when one fails (SIGTERM, then SIGKILL) and prints which rank failed first
and why. What it does not do, and this module does for the build:

- an outer deadline: past it, torchrun gets SIGTERM, which it passes on to every rank before it exits;
  a torchrun still running after GRACE seconds is killed with its ranks (each rank runs in a session
  of its own, so killing torchrun's process group would not reach them);
- output that reads the same from run to run: times, process ids, temporary folders and this machine's
  install paths are masked, and torchrun's own traceback (the agent re-raising the ranks' failure) is
  cut to one line; the ranks' output and torchrun's error report stay as they are.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DEADLINE = 120  # seconds for one torchrun command
GRACE = 20  # seconds torchrun gets to stop its ranks after SIGTERM
OMP_NOTICE = re.compile(r"\n?\*{41}\nSetting OMP_NUM_THREADS.*?\n\*{41}\n", re.S)
AGENT_TRACEBACK = re.compile(r"Traceback \(most recent call last\):\n  File \"<frozen runpy>\".*?\n(?=\S*ChildFailedError)", re.S)
PID_OF_RANK = re.compile(r"rank\s*: (\d+) \(local_rank: \d+\)\n\s*exitcode\s*: -?\d+ \(pid: (\d+)\)")
MASKS = [
    (re.compile(r"^([IWE])\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ ", re.M), r"\1 "),  # torchrun's log lines: time, pid
    (re.compile(r"\[([IWE])\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ "), r"[\1 "),  # the same from torch's C++ code
    (re.compile(r"(time\s*: )\S+"), r"\1<time>"),
    (re.compile(r"[^\s(]*/torchelastic_\w+/[\w-]+/"), "<tmp>/"),
    (re.compile(r"(Current thread|Thread) 0x[0-9a-f]+"), r"\1 0x…"),
    (re.compile(r"[^\s\"']*/site-packages/"), ""),
    (re.compile(r"[^\s\"']*/bin/python[\d.]*"), "python"),
]


def standalone(module: str, *args, nproc: int = 2) -> list[str]:
    """torchrun's arguments for one node: --standalone hosts the rendezvous itself, on a free port."""
    return ["--standalone", f"--nproc-per-node={nproc}", "-m", module, *map(str, args)]


def multinode(module: str, *args, nnodes: int, nproc: int, endpoint: str, run_id: str) -> list[str]:
    """The one command every node runs: the agents meet at `endpoint` (host:port) under the c10d
    rendezvous named `run_id`, which gives each node its rank."""
    return [f"--nnodes={nnodes}", f"--nproc-per-node={nproc}", "--rdzv-backend=c10d",
            f"--rdzv-endpoint={endpoint}", f"--rdzv-id={run_id}", "-m", module, *map(str, args)]


def shown(arguments: list[str]) -> str:
    """The command line a learner types."""
    return "$ torchrun " + " ".join(arguments)


def start(arguments: list[str]) -> subprocess.Popen:
    """Start torchrun (the same program as `python -m torch.distributed.run`) from the project root."""
    return subprocess.Popen([sys.executable, "-m", "torch.distributed.run", *arguments], cwd=ROOT,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)


def _children(pid: int) -> list[int]:
    with contextlib.suppress(OSError):
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return []


def finish(process: subprocess.Popen, deadline: float = DEADLINE) -> str:
    """What torchrun printed, once it has exited; past `deadline`, it is stopped (SIGTERM) and then killed."""
    try:
        return process.communicate(timeout=deadline)[0]
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGTERM)
    try:
        output = process.communicate(timeout=GRACE)[0]
    except subprocess.TimeoutExpired:
        for pid in _children(process.pid):
            os.kill(pid, signal.SIGKILL)
        os.killpg(process.pid, signal.SIGKILL)
        output = process.communicate()[0]
    return output + f"(torchrun stopped by the {deadline:g} s deadline, exit code {process.returncode})\n"


def tidy(output: str) -> str:
    """The output with what changes between runs masked (see the module's docstring)."""
    for rank, pid in PID_OF_RANK.findall(output):
        output = re.sub(rf"(pid: |PID |process ){pid}\b", rf"\g<1><pid of rank {rank}>", output)
    output = AGENT_TRACEBACK.sub("(torchrun's own traceback, re-raising the failure below)\n", OMP_NOTICE.sub("\n", output))
    for pattern, replacement in MASKS:
        output = pattern.sub(replacement, output)
    return output.replace(str(ROOT) + "/", "").strip("\n")


def run(arguments: list[str], deadline: float = DEADLINE) -> str:
    """The command line, then what torchrun and the ranks printed, tidied."""
    return shown(arguments) + "\n" + tidy(finish(start(arguments), deadline))
