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


def claim_dispatch_mode_sees_t_and_addmm(main):
    """#part-c: The `TorchDispatchMode` sees only `aten.t.default` and `aten.addmm.default`."""
    return main.between("TorchDispatchMode").text.split() == ["aten.t.default", "aten.addmm.default"]


def claim_layers_above_see_linear(main):
    """#part-c: The function mode records `linear`, and `make_fx(pre_dispatch=True)` captures `aten.linear.default`."""
    return (main.between("TorchFunctionMode", "make_fx").text.split() == ["linear"]
            and main.between("make_fx", "TorchDispatchMode").text.split() == ["aten.linear.default"])
