"""The dispatch table of aten::addmm, trimmed to the rows that matter, and the walk linear's call takes."""

from collections import Counter

import torch

from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory01.dispatch_table import by_priority, call_key_set, format_rows, table, walk

DEVICES = ("cpu", "cuda")
OP = "aten::addmm"
ROWS_THAT_MATTER = ("PythonDispatcher", "PreDispatch", "FuncTorchBatched", "AutocastCPU", "AutocastCUDA",
                    "AutogradCPU", "AutogradCUDA", "ADInplaceOrView", "Conjugate", "Functionalize", "Python",
                    "BackendSelect", "Meta", "CPU", "CUDA")


def kinds(op: str = OP) -> Counter:
    """How many rows of the table hold each kind of entry (fallthroughs counted apart)."""
    return Counter("fallthrough" if row.fallthrough else row.kind for row in table(op).values())


def trimmed(op: str = OP) -> list:
    """The rows that matter for the LM head, highest priority first."""
    rows = table(op)
    return [rows[key] for key in by_priority(k for k in ROWS_THAT_MATTER if k in rows)]


def linear_walk(device: str) -> tuple[str, list]:
    """Key set and visited rows of the addmm call that linear(x, W, b) makes on `device`."""
    x, W, b = make_inputs(device=device)
    keys = call_key_set(b, x, W.t())
    return str(keys), walk(OP, keys)


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    counts = ", ".join(f"{n} {kind}" for kind, n in kinds().most_common())
    print(f"{OP}: {sum(kinds().values())} rows ({counts})\n")
    print("Rows that matter, highest priority first:")
    print(format_rows(trimmed()))
    keys, visited = linear_walk(device)
    print(f"\nlinear(x, W, b) on {device}: addmm dispatches with {keys}")
    print("and visits, top to bottom:")
    print(format_rows(visited))
