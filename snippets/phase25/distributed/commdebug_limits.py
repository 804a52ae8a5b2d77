"""Where CommDebugMode stops: it skips sends and receives, and fails when a module runs twice."""

from __future__ import annotations

import torch
from torch import nn
from torch.distributed.tensor.debug import CommDebugMode, _comm_mode

ISOLATE = True  # the failure below leaves a forward hook behind; keep it out of the build process
TIMEOUT = 60


def watches(op_name: str) -> bool:
    """Whether CommDebugMode counts this c10d op."""
    return getattr(torch.ops.c10d, op_name) in _comm_mode.c10d_collective_ops


def run_twice() -> str:
    """Call one module twice under CommDebugMode, as a pipeline does once per micro-batch."""
    layer = nn.Linear(4, 4)
    try:
        with CommDebugMode():
            for _ in range(2):
                layer(torch.ones(1, 4))
    except Exception as error:  # noqa: BLE001 - the point is to show it
        return f"{type(error).__name__}: {error}"
    return "both calls ran"


def main():
    for op in ("allreduce_", "_allgather_base_", "_reduce_scatter_base_", "send", "recv_"):
        print(f"CommDebugMode counts c10d.{op}: {watches(op)}")
    print("a module called twice under CommDebugMode:", run_twice())
