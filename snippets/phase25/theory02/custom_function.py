"""A custom torch.autograd.Function for linear: one node of our own in the graph, with our backward."""

import torch
import torch.nn.functional as F

from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.lab01.hand_gradients import linear_backward


class HandLinear(torch.autograd.Function):
    """y = x @ W.T + b, with the backward derived by hand in lab 01."""

    @staticmethod
    def forward(ctx, x, W, b):
        ctx.save_for_backward(x, W)
        return x @ W.T + b

    @staticmethod
    def backward(ctx, grad_y):
        x, W = ctx.saved_tensors
        return linear_backward(grad_y, x, W)


def graph_of_custom() -> dict[str, str]:
    """How HandLinear appears in the graph, and what its node saved."""
    x, W, b = make_inputs()
    node = HandLinear.apply(x, W, b).grad_fn
    return {
        "type(y.grad_fn).__name__": type(node).__name__,
        "next_functions": str([type(n).__name__ for n, _ in node.next_functions]),
        "saved_tensors": str([tuple(t.shape) for t in node.saved_tensors]),
    }


def check_custom() -> dict[str, str]:
    """gradcheck against finite differences in float64, and the gap to F.linear's gradients in float32."""
    inputs64 = make_inputs(dtype=torch.float64)
    ours, theirs = make_inputs(), make_inputs()
    HandLinear.apply(*ours).sum().backward()
    F.linear(*theirs).sum().backward()
    gap = max((a.grad - c.grad).abs().max().item() for a, c in zip(ours, theirs))
    return {"gradcheck(HandLinear.apply, float64, fast_mode=True)":
            str(torch.autograd.gradcheck(HandLinear.apply, inputs64, fast_mode=True)),
            "max |grad - F.linear grad| (float32)": f"{gap:.1e}"}


def main():
    for what, value in {**graph_of_custom(), **check_custom()}.items():
        print(f"{what:54} {value}")


def claim_one_python_node(main):
    """#custom-function: the node is HandLinearBackward, its next_functions go straight to the three leaves, and it saved x and W."""
    return (main.line("type(y.grad_fn)").split()[-1] == "HandLinearBackward"
            and main.line("next_functions").endswith("['AccumulateGrad', 'AccumulateGrad', 'AccumulateGrad']")
            and main.line("saved_tensors").endswith("[(2, 64), (600, 64)]"))


def claim_gradcheck_and_agreement(main):
    """#custom-function: gradcheck passes in float64, and the gradients agree with F.linear's."""
    return main.line("gradcheck(").endswith("True") and main.number("max |grad - F.linear grad| (float32)") <= 1e-6
