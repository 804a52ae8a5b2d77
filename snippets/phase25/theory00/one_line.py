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


def main():
    forward, backward = call_tree()
    print(f"y = F.linear(x, W, b): {len(forward)} operator calls")
    for line in forward:
        print(f"    {line}")
    top = [line.split(": ")[-1] for line in backward if line.startswith("autograd::engine")]
    print(f"\ny.sum().backward(): {len(backward)} calls; the engine evaluates, in order:")
    print("    " + ", ".join(top))
