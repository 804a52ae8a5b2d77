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


def as_module() -> tuple[list[str], list[str]]:
    """Exercise 2: the call trees of F.linear(x, W, b) and of nn.Linear(64, 600) holding the same W and b."""
    x, W, b = make_inputs()
    head = torch.nn.Linear(W.shape[1], W.shape[0])
    with torch.no_grad():
        head.weight.copy_(W)
        head.bias.copy_(b)
    return profiled(lambda: F.linear(x, W, b)), profiled(lambda: head(x))


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


def main_module():
    functional, module = as_module()
    print(f"F.linear(x, W, b):         {len(functional)} operator calls")
    print(f"nn.Linear(64, 600)(x):     {len(module)} operator calls")
    print("same operators in the same order:", [s.strip() for s in functional] == [s.strip() for s in module])


def main_only_weight():
    tree = only_weight_backward()
    print("the engine evaluates:", ", ".join(engine_nodes(tree)))
    print(f"aten::mm calls: {calls_of(tree, 'aten::mm')}")


def claim_no_bias_is_matmul(main_without_bias):
    """#exercises: without a bias, linear becomes t and matmul, and matmul becomes mm: no addmm, no copy of a bias."""
    tree = main_without_bias.text
    return ("aten::addmm" not in tree and "aten::copy_" not in tree and "aten::matmul" in tree
            and "aten::mm" in tree and "aten::t" in tree)


def claim_module_adds_no_operator(main_module):
    """#exercises: the module makes the same operator calls as F.linear, in the same order."""
    return (main_module.line("same operators").endswith("True")
            and main_module.number("F.linear(x, W, b):", 0) == main_module.number("nn.Linear(64, 600)(x):", 0))


def claim_one_mm(main_only_weight):
    """#exercises: with only W requiring a gradient, backward computes one matrix product and accumulates one gradient."""
    nodes = main_only_weight.line("the engine evaluates").split(": ", 1)[1].split(", ")
    return main_only_weight.number("aten::mm calls:", 0) == 1 and nodes.count("torch::autograd::AccumulateGrad") == 1
