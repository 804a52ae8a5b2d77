"""Part D: linear against addmm called directly, and against (x @ W.T) + b."""

import torch
import torch.nn.functional as F

from snippets.phase25.lab00.dispatch_log import dispatched_ops
from snippets.phase25.lab00.part_a_baseline import make_inputs


def comparisons() -> dict[str, list[str]]:
    x, W, b = make_inputs()
    Wt = W.T  # transposed outside the mode: the view is made before tracing starts
    return {
        "F.linear(x, W, b)": dispatched_ops(F.linear, x, W, b),
        "torch.addmm(b, x, W.T)": dispatched_ops(lambda: torch.addmm(b, x, W.T)),
        "torch.addmm(b, x, Wt), Wt = W.T made before": dispatched_ops(lambda: torch.addmm(b, x, Wt)),
        "(x @ W.T) + b": dispatched_ops(lambda: (x @ W.T) + b),
    }


def main():
    for call, ops in comparisons().items():
        print(f"{call:46} {len(ops)} op(s): {', '.join(ops)}")
