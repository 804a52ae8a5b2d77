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


def claim_collectives_only_and_the_index_error(main):
    """#commdebugmode: CommDebugMode counts collectives only: sends and receives are not in its list; a module run twice under it raises the IndexError printed above."""
    counted = {line.split()[2].rstrip(":"): line.split()[-1] for line in main.lines if line.startswith("CommDebugMode counts")}
    return (counted["c10d.send"] == counted["c10d.recv_"] == "False"
            and all(v == "True" for k, v in counted.items() if k not in ("c10d.send", "c10d.recv_"))
            and "IndexError" in main.line("a module called twice"))
