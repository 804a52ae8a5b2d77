"""Part C: trace linear(x, W, b) at three layers."""

import torch.nn.functional as F

from snippets.phase25.lab00.dispatch_log import dispatched_ops, function_calls, pre_dispatch_ops
from snippets.phase25.lab00.part_a_baseline import make_inputs


def traces() -> dict[str, list[str]]:
    x, W, b = make_inputs()
    return {
        "TorchFunctionMode (Python API)": function_calls(F.linear, x, W, b),
        "make_fx(pre_dispatch=True)": pre_dispatch_ops(F.linear, x, W, b),
        "TorchDispatchMode (below autograd)": dispatched_ops(F.linear, x, W, b),
    }


def main():
    for layer, ops in traces().items():
        print(f"{layer}:")
        for op in ops:
            print(f"    {op}")
