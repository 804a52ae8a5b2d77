"""Three keys that are not backends: BackendSelect, ADInplaceOrView and AutocastCPU, each doing one job."""

import torch
import torch.nn.functional as F

from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory01.dispatch_table import call_key_set, format_rows, names, table, walk


def factory_walk() -> tuple[str, list]:
    """torch.empty has no tensor argument: its key set comes from the thread alone."""
    keys = call_key_set()
    return ", ".join(names(keys)), walk("aten::empty.memory_format", keys)


def inplace_or_view_rows(ops=("aten::t", "aten::add_.Tensor", "aten::addmm")) -> dict[str, str]:
    """Whether each op has its own ADInplaceOrView kernel or falls through that key."""
    rows = {op: table(op)["ADInplaceOrView"] for op in ops}
    return {op: "fallthrough" if row.fallthrough else f"{row.kind} ({row.where.rsplit('/', 1)[-1]})"
            for op, row in rows.items()}


def view_and_inplace() -> dict[str, str]:
    """What the ADInplaceOrView kernels of a view op and of an in-place op leave behind."""
    x, W, _ = make_inputs()
    Wt = W.t()
    h = x.detach().clone()
    before = h._version
    h.add_(1)
    return {
        "W.t()._is_view(), W.t()._base is W": f"{Wt._is_view()}, {Wt._base is W}",
        "h._version before and after h.add_(1)": f"{before} -> {h._version}",
    }


def autocast_linear() -> tuple[list, str]:
    """Under torch.autocast('cpu'), linear enters at AutocastCPU, which casts and calls linear again."""
    x, W, b = make_inputs()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        rows = walk("aten::linear", call_key_set(x, W, b))
        y = F.linear(x, W, b)
    return rows, f"{y.dtype}, grad_fn {type(y.grad_fn).__name__}"


def main():
    keys, rows = factory_walk()
    print(f"torch.empty(...): key set {keys}")
    print(format_rows(rows))
    print("\nADInplaceOrView rows, then what they recorded:")
    for op, kind in inplace_or_view_rows().items():
        print(f"  {op:<38} {kind}")
    for what, value in view_and_inplace().items():
        print(f"  {what:<38} {value}")
    rows, result = autocast_linear()
    print("\nlinear under torch.autocast('cpu', dtype=torch.bfloat16):")
    print(format_rows(rows))
    print(f"  output: {result}")
