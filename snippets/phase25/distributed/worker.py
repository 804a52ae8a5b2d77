"""One rank: join the process group through the parent's store, run the demo, write its result.

Started by `launch.run_ranks` as `python -m snippets.phase25.distributed.worker SPEC_JSON`.
"""

from __future__ import annotations

import ctypes
import datetime
import faulthandler
import importlib
import json
import os
import signal
import sys
import traceback
from pathlib import Path

import torch
import torch.distributed as dist

PR_SET_PDEATHSIG = 1
STACK_SIGNAL = signal.SIGUSR1


def die_with_parent(parent: int) -> None:
    """Ask Linux to kill this rank when the launcher dies, however it dies."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the launcher died before the request above
        os._exit(1)


def rank_device(backend: str, rank: int) -> torch.device:
    """CPU for gloo; one GPU per rank for NCCL."""
    if backend == "nccl":
        torch.cuda.set_device(rank)
        return torch.device("cuda", rank)
    return torch.device("cpu")


def run(spec: dict) -> dict:
    """Join the group, call the demo function, leave the group. The group's own timeout is a
    safety net set past the launcher's deadline, which always fires first.

    A demo that raises ends the rank at once, its traceback printed first: leaving the group
    politely would wait for operations its peers never complete (with NCCL, for ever)."""
    timeout = datetime.timedelta(seconds=spec["timeout"] + 30)
    store = dist.TCPStore("127.0.0.1", spec["port"], spec["world_size"] + 1, is_master=False, timeout=timeout)
    device = rank_device(spec["backend"], spec["rank"])
    dist.init_process_group(spec["backend"], store=store, rank=spec["rank"], world_size=spec["world_size"],
                            timeout=timeout, device_id=device if device.type == "cuda" else None)
    torch.manual_seed(0)
    function = getattr(importlib.import_module(spec["module"]), spec["function"])
    try:
        result = function(device, **spec["kwargs"])
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)
    dist.destroy_process_group()
    return result


def main(argv: list[str]) -> None:
    """Run the rank, write its result, and leave without Python's final clean-up: gloo's threads can
    still hold tensors then, and freeing them while the interpreter shuts down aborts the process."""
    spec = json.loads(argv[0])
    die_with_parent(spec["parent"])
    faulthandler.register(STACK_SIGNAL, all_threads=True)  # the launcher asks where a late rank is stuck
    torch.set_num_threads(1)
    result = run(spec)
    Path(spec["result"]).write_text(json.dumps(result), encoding="utf-8")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
