"""Part C: trace linear(x, W, b) at three layers."""

import torch.nn.functional as F

from snippets.phase25.lab00.dispatch_log import dispatched_ops, function_calls, pre_dispatch_ops
from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory01.native_functions import entry


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
    print("\nlinear in native_functions.yaml (shipped with the wheel in torchgen/packaged/):")
    print(*entry("linear"), sep="\n")


def claim_dispatch_mode_sees_t_and_addmm(main):
    """#part-c: The `TorchDispatchMode` sees only `aten.t.default` and `aten.addmm.default`."""
    return main.between("TorchDispatchMode", "native_functions.yaml").text.split() == ["aten.t.default", "aten.addmm.default"]


def claim_layers_above_see_linear(main):
    """#part-c: The function mode records `linear`, and `make_fx(pre_dispatch=True)` captures `aten.linear.default`."""
    return (main.between("TorchFunctionMode", "make_fx").text.split() == ["linear"]
            and main.between("make_fx", "TorchDispatchMode").text.split() == ["aten.linear.default"])


def claim_linear_kernels(main):
    """#part-c: for dense tensors linear has no kernel of its own, only a CompositeImplicitAutograd decomposition; its own kernels are for MPS and nested tensors."""
    keys = {key.strip() for line in main.between("native_functions.yaml").between("dispatch:").lines if ":" in line
            for key in line.split(":")[0].split(",")}
    return keys == {"CompositeImplicitAutograd", "MPS", "NestedTensorCPU", "NestedTensorHPU", "NestedTensorCUDA"}
