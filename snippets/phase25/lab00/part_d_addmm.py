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


def claim_w_t_is_a_permute(main):
    """#part-d: `torch.addmm(b, x, W.T)` is not a single op: `W.T` is itself an ATen call (`aten.permute`)."""
    return main.line("addmm(b, x, W.T)").endswith("2 op(s): aten.permute.default, aten.addmm.default")


def claim_addmm_alone(main):
    """#part-d: Make the transposed view before tracing starts and `addmm` stands alone: one op against the two of `linear`."""
    return (main.line("made before").endswith("1 op(s): aten.addmm.default")
            and main.number("F.linear(x, W, b)") == 2)


def claim_matmul_plus_add(main):
    """#part-d: `(x @ W.T) + b` becomes `mm`, and the bias is a separate `add`."""
    return main.line("(x @ W.T) + b").endswith("aten.permute.default, aten.mm.default, aten.add.Tensor")
