"""Graph capture: the nodes linear(x, W, b) records, reached by hand through next_functions."""

import torch
import torch.nn.functional as F

from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory02.graph_walk import label


def walk_linear() -> list[tuple[str, str]]:
    """Each step from y.grad_fn down to the leaves, written as the expression that reaches it."""
    x, W, b = make_inputs()
    leaves = {"x": x, "W": W, "b": b}
    y = F.linear(x, W, b)
    addmm = y.grad_fn
    (bias_node, _), (input_node, _), (weight_path, _) = addmm.next_functions
    ((weight_node, _),) = weight_path.next_functions
    return [
        ("y.grad_fn", label(addmm, leaves)),
        ("y.grad_fn.next_functions[0][0]", label(bias_node, leaves)),
        ("y.grad_fn.next_functions[1][0]", label(input_node, leaves)),
        ("y.grad_fn.next_functions[2][0]", label(weight_path, leaves)),
        ("y.grad_fn.next_functions[2][0].next_functions[0][0]", label(weight_node, leaves)),
        ("AccumulateGrad(W).next_functions", str(weight_node.next_functions)),
    ]


def leaves_and_results() -> list[tuple[str, str]]:
    """is_leaf and grad_fn of the inputs, of W.t() and of the output."""
    x, W, b = make_inputs()
    y = F.linear(x, W, b)
    return [(f"{name}: is_leaf={t.is_leaf}, grad_fn", type(t.grad_fn).__name__ if t.grad_fn else "None")
            for name, t in (("x", x), ("W", W), ("W.t()", W.t()), ("y", y))]


def variants() -> list[tuple[str, str]]:
    """The node types in next_functions when x needs no gradient, and when W.T is a leaf of its own."""
    x, W, b = make_inputs()
    Wt = W.detach().t().requires_grad_()

    def names(t: torch.Tensor) -> str:
        return str([type(node).__name__ if node else None for node, _ in t.grad_fn.next_functions])

    return [("F.linear(x.detach(), W, b)", names(F.linear(x.detach(), W, b))),
            ("torch.addmm(b, x, Wt), Wt a leaf", names(torch.addmm(b, x, Wt)))]


def main():
    for group in (walk_linear(), leaves_and_results(), variants()):
        for expression, value in group:
            print(f"{expression:52} {value}")
        print()


def claim_addmm_node_and_slots(main):
    """#graph-capture: y.grad_fn is AddmmBackward0, whose next_functions follow addmm(self=b, mat1=x, mat2=W.T): AccumulateGrad(b), AccumulateGrad(x), then TBackward0, behind which sits AccumulateGrad(W)."""
    return (main.line("y.grad_fn  ").split()[-1] == "AddmmBackward0"
            and [main.line(f"y.grad_fn.next_functions[{i}][0]  ").split()[-1] for i in range(3)]
            == ["AccumulateGrad(b)", "AccumulateGrad(x)", "TBackward0"]
            and main.line("next_functions[2][0].next_functions[0][0]").split()[-1] == "AccumulateGrad(W)")


def claim_leaves(main):
    """#graph-capture: a leaf has is_leaf=True and grad_fn=None, and its AccumulateGrad has no next_functions (the empty tuple); W.t() is a view with a node of its own, TBackward0."""
    return (main.line("AccumulateGrad(W).next_functions").split()[-1] == "()"
            and all(main.line(f"{name}: is_leaf=True").split()[-1] == "None" for name in ("x", "W"))
            and main.line("W.t(): is_leaf=False").split()[-1] == "TBackward0")


def claim_inputs_change_slots(main):
    """#graph-capture: with x.detach() the second slot is None; with a transposed weight that is a leaf of its own, all three slots are AccumulateGrad."""
    return (main.line("x.detach()").endswith("['AccumulateGrad', None, 'TBackward0']")
            and main.line("Wt a leaf").endswith("['AccumulateGrad', 'AccumulateGrad', 'AccumulateGrad']"))
