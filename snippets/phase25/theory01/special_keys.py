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


def claim_factory_key_set(main):
    """#special-keys: torch.empty gets its key set from the thread alone and reaches the BackendSelect kernel generated in RegisterBackendSelect.cpp."""
    return main.line("torch.empty").endswith("key set BackendSelect, ADInplaceOrView") and \
        "RegisterBackendSelect.cpp" in main.line("  BackendSelect     kernel")


def claim_inplace_or_view(main):
    """#special-keys: a view remembers its base, an in-place op bumps the version counter; aten::t and aten::add_ have real kernels here, aten::addmm falls through."""
    return ("kernel" in main.line("aten::t ") and "kernel" in main.line("aten::add_")
            and main.line("aten::addmm").endswith("fallthrough") and main.line("_base is W").endswith("True, True")
            and main.line("h._version").endswith("0 -> 1"))


def claim_autocast_linear(main):
    """#special-keys: AutocastCPU has a kernel for linear in autocast_mode.cpp; the second call enters at AutogradCPU, where linear's row holds a math kernel; the output is bfloat16 and the graph records AddmmBackward0."""
    autocast = main.between("linear under torch.autocast")
    return ("autocast_mode.cpp" in autocast.line("AutocastCPU") and "math kernel" in autocast.line("AutogradCPU")
            and autocast.line("output:").strip() == "output: torch.bfloat16, grad_fn AddmmBackward0")
