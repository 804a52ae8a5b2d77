"""Part E: the profiler's view of forward and backward, reduced to what is the same every run."""

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

from snippets.phase25.lab00.part_a_baseline import make_inputs

WATCHED = ("aten::linear", "aten::t", "aten::addmm", "aten::mm", "aten::sum", "AddmmBackward0", "TBackward0")


def profile_linear(activities=(ProfilerActivity.CPU,), device: str = "cpu"):
    """Profile one forward and backward of linear(x, W, b) with input shapes recorded."""
    x, W, b = make_inputs(device=device)
    with profile(activities=list(activities), record_shapes=True) as prof:
        y = F.linear(x, W, b)
        y.sum().backward()
    return prof


def summary(prof) -> list[tuple[str, str, int]]:
    """(op name, input shapes, calls) for the watched ops, sorted by name: no timings."""
    return sorted((event.key, str(event.input_shapes), event.count)
                  for event in prof.key_averages(group_by_input_shape=True) if event.key in WATCHED)


def main():
    print(f"{'op':16} {'input shapes':40} calls")
    for name, shapes, count in summary(profile_linear()):
        print(f"{name:16} {shapes:40} {count}")


def claim_linear_seen(main):
    """#part-e: The profiler sees `aten::linear`."""
    return main.count("aten::linear") == 1


def claim_forward_rows(main):
    """#part-e: The forward rows are `aten::linear`, `aten::t` and `aten::addmm` with the shapes `[2, 64]`, `[600, 64]`, `[600]`."""
    return ("[[2, 64], [600, 64], [600]]" in main.line("aten::linear")
            and "[[600], [2, 64], [64, 600]" in main.line("aten::addmm") and "aten::t " in main)


def claim_backward_rows(main):
    """#part-e: The backward rows are `AddmmBackward0` and `TBackward0`."""
    return main.count("AddmmBackward0") == 1 and main.count("TBackward0") == 1
