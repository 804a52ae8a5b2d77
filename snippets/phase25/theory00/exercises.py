"""Theory 00's exercises: change one thing about linear(x, W, b) and watch the call tree change."""

import torch
import torch.nn.functional as F
from torch.profiler import profile

from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory00.one_line import calls_of, depth


def profiled(fn) -> list[str]:
    """Indented names of the operator calls fn() makes, in the order they ran."""
    with profile() as prof:
        fn()
    return ["  " * depth(e) + e.name for e in sorted(prof.events(), key=lambda e: e.time_range.start)]


def without_bias() -> list[str]:
    """Exercise 1: F.linear(x, W) with no bias."""
    x, W, _ = make_inputs()
    return profiled(lambda: F.linear(x, W))


def batched_sequences() -> tuple[tuple, tuple, list[str]]:
    """Exercise 2: F.linear(x, W, b) on a batch of 3 sequences of 2 rows each: the input's and output's
    shapes, and the operator calls."""
    _, W, b = make_inputs()
    x = torch.randn(3, 2, W.shape[1], requires_grad=True)
    y = []
    tree = profiled(lambda: y.append(F.linear(x, W, b)))
    return tuple(x.shape), tuple(y[0].shape), tree


def only_weight_backward() -> list[str]:
    """Exercise 3: backward when only W requires a gradient (x and b are plain tensors)."""
    x, W, b = make_inputs()
    y = F.linear(x.detach(), W, b.detach())
    return profiled(lambda: y.sum().backward())


def engine_nodes(tree: list[str]) -> list[str]:
    """The nodes the autograd engine evaluated, in order."""
    return [line.split(": ")[-1] for line in tree if line.startswith("autograd::engine")]


def main_without_bias():
    tree = without_bias()
    print(f"y = F.linear(x, W): {len(tree)} operator calls")
    for line in tree:
        print(f"    {line}")


def main_batched():
    shape_in, shape_out, tree = batched_sequences()
    print(f"y = F.linear(x, W, b), x {shape_in} -> y {shape_out}: {calls_of(tree, 'aten::addmm')} aten::addmm")
    for line in tree:
        print(f"    {line}")


def main_only_weight():
    tree = only_weight_backward()
    print("the engine evaluates:", ", ".join(engine_nodes(tree)))
    print(f"aten::mm calls: {calls_of(tree, 'aten::mm')}")


def claim_no_bias_is_matmul(main_without_bias):
    """#exercises: without a bias, linear becomes t and matmul, and matmul becomes mm: no addmm, no copy of a bias."""
    tree = main_without_bias.text
    return ("aten::addmm" not in tree and "aten::copy_" not in tree and "aten::matmul" in tree
            and "aten::mm" in tree and "aten::t" in tree)


def claim_one_addmm_between_views(main_batched):
    """#exercises: on a 3-D input, linear's first and last calls are views, with one addmm (no matmul, no bmm) between them."""
    children = [line.strip() for line in main_batched.lines[1:] if line.startswith("      ") and not line.startswith("        ")]
    return (main_batched.lines[0].endswith("(3, 2, 64) -> y (3, 2, 600): 1 aten::addmm")
            and children[0] == children[-1] == "aten::view" and children.count("aten::addmm") == 1
            and "matmul" not in main_batched.text and "bmm" not in main_batched.text)


def claim_one_mm(main_only_weight):
    """#exercises: with only W requiring a gradient, backward computes one matrix product and accumulates one gradient."""
    nodes = main_only_weight.line("the engine evaluates").split(": ", 1)[1].split(", ")
    return main_only_weight.number("aten::mm calls:", 0) == 1 and nodes.count("torch::autograd::AccumulateGrad") == 1
