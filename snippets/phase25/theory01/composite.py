"""CompositeImplicitAutograd against explicit kernels: the registrations, and what reaches a backend."""

import torch
import torch.nn.functional as F

from snippets.phase25.lab00.dispatch_log import dispatched_ops
from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory01.dispatch_table import table
from snippets.phase25.theory01.native_functions import trimmed

DECLARATIONS = ("linear", "matmul", "addmm", "addmm.out", "t")
OPS = ("aten::linear", "aten::matmul", "aten::addmm", "aten::mm", "aten::t")


def computed_kernels(ops=OPS) -> dict[str, tuple[str, str]]:
    """For each op, the kind of kernel its AutogradCPU and CPU rows hold, with the file that registered it."""
    rows = {}
    for op in ops:
        entries = table(op)
        rows[op] = tuple(f"{entries[key].kind} ({entries[key].where.rsplit('/', 1)[-1].split(':')[0]})"
                         for key in ("AutogradCPU", "CPU"))
    return rows


def what_reaches_the_backend() -> dict[str, list[str]]:
    """The ATen ops a TorchDispatchMode sees for linear and matmul on 2-D and 3-D inputs."""
    x, W, b = make_inputs()
    h = torch.randn(4, 8, 64)  # (batch, sequence, d_model): the shape the MiniGPT's head really gets
    return {
        "F.linear(x, W, b)      x (2, 64)": dispatched_ops(F.linear, x, W, b),
        "F.linear(h, W, b)      h (4, 8, 64)": dispatched_ops(F.linear, h, W, b),
        "F.linear(h, W)         no bias": dispatched_ops(F.linear, h, W),
        "torch.matmul(x, Wt)    2-D @ 2-D": dispatched_ops(torch.matmul, x, W.t()),
        "torch.matmul(h, Wt)    3-D @ 2-D": dispatched_ops(torch.matmul, h, W.t()),
        "torch.matmul(hT, Wt)   hT = h.transpose(0, 1)": dispatched_ops(torch.matmul, h.transpose(0, 1), W.t()),
    }


def main():
    print("Declared in native_functions.yaml (shipped with the wheel in torchgen/packaged/):\n")
    for func in DECLARATIONS:
        print(trimmed(func), end="\n\n")
    print("Computed dispatch table rows:")
    print(f"  {'op':<14} {'AutogradCPU':<54} CPU")
    for op, (autograd, cpu) in computed_kernels().items():
        print(f"  {op:<14} {autograd:<54} {cpu}")
    print("\nWhat reaches the Python key (a TorchDispatchMode), below every composite:")
    for call, ops in what_reaches_the_backend().items():
        print(f"  {call:<46} {', '.join(op.removeprefix('aten.') for op in ops)}")


def claim_composite_declarations(main):
    """#composite: linear and matmul declare, for dense tensors, one kernel under the alias key CompositeImplicitAutograd; the other lines are for nested tensors and other backends."""
    for op in ("linear(", "matmul("):
        entry = main.between(f"- func: {op}", "- func:").lines
        if not (entry[1].strip() == f"CompositeImplicitAutograd: {op[:-1]}" and entry[2].strip().startswith("# ...")):
            return False
    return True


def claim_math_kernel_rows(main):
    """#composite: the computed table shows a math kernel at AutogradCPU and at CPU for linear and matmul."""
    return all(main.line(f"aten::{op} ").count("math kernel") == 2 for op in ("linear", "matmul"))


def claim_explicit_addmm_and_t(main):
    """#composite: addmm declares CPU: addmm_out_cpu and CUDA: addmm_out_cuda on addmm.out, with an autograd kernel; t is CompositeExplicitAutograd, one kernel below its own autograd kernel."""
    out = main.between("- func: addmm.out", "- func:")
    return ("CPU: addmm_out_cpu" in out and "CUDA: addmm_out_cuda" in out
            and "structured_delegate: addmm.out" in main.between("- func: addmm(", "- func:")
            and "CompositeExplicitAutograd: t" in main.between("- func: t(")
            and main.line("aten::addmm ").split()[1:3] == ["autograd", "kernel"]
            and re.search(r"aten::t +autograd kernel .*RegisterCompositeExplicitAutograd_", main.text) is not None)


def claim_explicit_summary(main):
    """#summary: explicit operators (addmm, mm) have a kernel per backend and a derivative formula."""
    return all(re.search(rf"aten::{op} +autograd kernel \(VariableType_\d+\.cpp\) +kernel \(RegisterCPU_", main.text)
               for op in ("addmm", "mm"))


def claim_what_reaches_python(main):
    """#composite: a dispatch mode never sees aten.linear; on a 3-D input linear folds the batch into rows (view, t, addmm, view); without a bias it goes through mm; matmul on a transposed 3-D input copies it first (clone)."""
    seen = main.between("What reaches the Python key")
    return ("linear.default" not in seen and "matmul.default" not in seen
            and seen.line("F.linear(h, W, b)").endswith("view.default, t.default, addmm.default, view.default")
            and "mm.default" in seen.line("no bias") and "addmm" not in seen.line("no bias")
            and seen.line("hT = h.transpose").split("  ")[-1].strip().startswith("clone.default"))
