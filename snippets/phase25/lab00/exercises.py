"""Lab 00's exercises: each answer is the dispatch trace of a variation on linear(x, W, b)."""

import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode

from snippets.phase25.lab00.dispatch_log import LogDispatch, dispatched_ops
from snippets.phase25.lab00.part_a_baseline import make_inputs

aten = torch.ops.aten


class CountFlops(TorchDispatchMode):
    """Exercise 1: the floating-point operations of every matrix product, 2·m·k·n, per op name."""

    def __init__(self):
        super().__init__()
        self.flops = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        products = {aten.mm.default: args[:2], aten.addmm.default: args[1:3]}
        if func in products:
            a, b = products[func]
            self.flops[str(func)] = self.flops.get(str(func), 0) + 2 * a.shape[0] * a.shape[1] * b.shape[1]
        return func(*args, **(kwargs or {}))


def flops_of_linear() -> dict[str, int]:
    """Exercise 1: CountFlops around forward and backward of linear, and PyTorch's own FlopCounterMode's total."""
    x, W, b = make_inputs()
    with CountFlops() as counter:
        F.linear(x, W, b).sum().backward()
    x, W, b = make_inputs()
    with FlopCounterMode(display=False) as reference:
        F.linear(x, W, b).sum().backward()
    return counter.flops | {"total": sum(counter.flops.values()), "FlopCounterMode": reference.get_total_flops()}


def batched_input() -> list[str]:
    """Exercise 2: a 3-d input, (4, 2, 64), through the same head."""
    _, W, b = make_inputs()
    x = torch.randn(4, 2, 64)
    return dispatched_ops(F.linear, x, W, b)


def grad_modes() -> dict[str, list[str]]:
    """Exercise 3: the same call under no_grad and under inference_mode."""
    x, W, b = make_inputs()
    traces = {}
    for label, mode in (("torch.no_grad()", torch.no_grad), ("torch.inference_mode()", torch.inference_mode)):
        with mode():
            traces[label] = dispatched_ops(F.linear, x, W, b)
    return traces


def forward_and_backward() -> list[str]:
    """Exercise 4: the mode entered around backward() as well."""
    x, W, b = make_inputs()
    with LogDispatch() as log:
        F.linear(x, W, b).sum().backward()
    return log.calls


def exercise1():
    for name, flops in flops_of_linear().items():
        print(f"{name + ':':<22} {flops:>7,} FLOPs")


def exercise2():
    print("F.linear(x of shape (4, 2, 64), W, b):")
    for op in batched_input():
        print(f"    {op}")


def exercise3():
    for label, ops in grad_modes().items():
        print(f"under {label}: {', '.join(ops)}")


def exercise4():
    calls = forward_and_backward()
    print(f"{len(calls)} ops:")
    for op in calls:
        print(f"    {op}")
    print(f"aten.mm.default: {calls.count('aten.mm.default')}, aten.addmm.default: {calls.count('aten.addmm.default')}")


def claim_flops_match_flop_counter(exercise1):
    """#exercise-1: the forward's one addmm costs as much as each of the backward's two mm, and the total is FlopCounterMode's."""
    count = {name: int(exercise1.line(name + ":").split()[1].replace(",", ""))
             for name in ("aten.addmm.default", "aten.mm.default", "total", "FlopCounterMode")}
    return (count["aten.mm.default"] == 2 * count["aten.addmm.default"] == 2 * 2 * 2 * 64 * 600
            and count["total"] == count["FlopCounterMode"])


def claim_batched_views(exercise2):
    """#exercise-2: The batch dimensions are flattened by an `aten.view` before the `addmm` and restored by another after it."""
    return exercise2.between("F.linear(").text.split() == [
        "aten.view.default", "aten.t.default", "aten.addmm.default", "aten.view.default"]


def claim_no_grad_same_trace(exercise3):
    """#exercise-3: Under `no_grad` the trace is the usual `aten.t`, `aten.addmm`."""
    return exercise3.line("no_grad").endswith(": aten.t.default, aten.addmm.default")


def claim_inference_mode_sees_linear(exercise3):
    """#exercise-3: Under `inference_mode` the dispatch mode sees `aten.linear.default` itself, and nothing else."""
    return exercise3.line("inference_mode").endswith(": aten.linear.default")


def claim_two_mm_in_backward(exercise4):
    """#exercise-4: The backward adds two `aten.mm`, and the forward's one `aten.addmm` is the only `addmm`."""
    return exercise4.number("aten.mm.default:") == 2 and exercise4.number("aten.addmm.default:") == 1


def claim_first_two_are_forward(exercise4):
    """#exercise-4: The first two ops are the forward's `aten.t` and `aten.addmm`, then the `sum`, then the backward, which starts by filling the gradient of the sum with ones."""
    ops = exercise4.between("ops:").text.split()
    return ops[:4] == ["aten.t.default", "aten.addmm.default", "aten.sum.default", "aten.ones_like.default"]


def claim_bias_reduction_and_detaches(exercise4):
    """#exercise-4: The `sum.dim_IntList` and `view` reduce the bias gradient to `b`'s shape, and each `detach` is an `AccumulateGrad` storing a leaf's gradient."""
    ops = exercise4.between("ops:").text.split()
    return ops.count("aten.sum.dim_IntList") == 1 and ops.count("aten.view.default") == 1 and ops.count("aten.detach.default") == 3
