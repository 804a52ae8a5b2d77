"""One line of Python, the LM head's linear(x, W, b), opened up: every operator call it makes."""

import torch.nn.functional as F
from torch.profiler import profile

from snippets.phase25.lab00.part_a_baseline import make_inputs


def depth(event) -> int:
    """How many profiler events enclose this one."""
    level, parent = 0, event.cpu_parent
    while parent is not None:
        level, parent = level + 1, parent.cpu_parent
    return level


def call_tree() -> tuple[list[str], list[str]]:
    """Indented event names of y = linear(x, W, b) and of y.sum().backward(), in the order they ran."""
    x, W, b = make_inputs()
    with profile() as forward:
        y = F.linear(x, W, b)
    with profile() as backward:
        y.sum().backward()
    trees = []
    for prof in (forward, backward):
        events = sorted(prof.events(), key=lambda e: e.time_range.start)
        trees.append(["  " * depth(e) + e.name for e in events])
    return trees[0], trees[1]


def calls_of(tree: list[str], op: str) -> int:
    """How many events of an indented call tree are the operator `op`."""
    return sum(line.strip() == op for line in tree)


def main():
    forward, backward = call_tree()
    print(f"y = F.linear(x, W, b): {len(forward)} operator calls")
    for line in forward:
        print(f"    {line}")
    top = [line.split(": ")[-1] for line in backward if line.startswith("autograd::engine")]
    print(f"\ny.sum().backward(): {len(backward)} calls; the engine evaluates, in order:")
    print("    " + ", ".join(top))
    print(f"    matrix products among the {len(backward)} calls: {calls_of(backward, 'aten::mm')} aten::mm")


def claim_linear_is_the_root(main):
    """#one-line: the one line you wrote is aten::linear; everything indented under it is work you did not write."""
    tree = main.between("operator calls", "y.sum()").lines
    return tree[0].strip() == "aten::linear" and all(line.startswith("      ") for line in tree[1:] if line.strip())


def claim_t_and_addmm(main):
    """#one-line: linear becomes a transpose (aten::t, a view made through transpose and as_strided, no data moved) and one aten::addmm."""
    children = [line.strip() for line in main.between("operator calls", "y.sum()").lines if line.startswith("      aten")
                and not line.startswith("        ")]
    under_t = main.between("      aten::t", "      aten::addmm").text
    return children == ["aten::t", "aten::addmm"] and "aten::transpose" in under_t and "copy" not in under_t


def claim_bias_copied(main):
    """#one-line: addmm copies the bias into the output and runs the matrix product on top of it."""
    return "aten::copy_" in main.between("      aten::addmm", "y.sum()")


def claim_backward_walk(main):
    """#one-line: the engine walks SumBackward0, AddmmBackward0 and TBackward0, computes two matrix products, and accumulates the gradients into the three leaves."""
    order = [name.strip() for name in main.between("the engine evaluates").lines[0].split(",")]
    nodes = [name for name in order if "AccumulateGrad" not in name]
    return (nodes == ["SumBackward0", "AddmmBackward0", "TBackward0"] and order.count("torch::autograd::AccumulateGrad") == 3
            and main.number("matrix products among the", 1) == 2)
