"""The usual TORCH_LIBRARY_IMPL(aten, CUDA, m) { m.impl("add.Tensor", ...) }, done from Python for CPU."""

import torch

from snippets.phase25.theory01.dispatch_table import table
from snippets.phase25.theory01.one_key import kernel_for_key


def make_my_add(calls: list):
    """A kernel with add.Tensor's schema; it counts its calls and computes a + alpha * b through sub."""

    def my_add_cpu(self, other, *, alpha=1):
        calls.append(tuple(self.shape))
        return torch.sub(self, other, alpha=-alpha)  # aten::sub.Tensor: not add, so no recursion

    return my_add_cpu


def cpu_row() -> str:
    """The CPU row of aten::add.Tensor's table: which kernel, registered where."""
    row = table("aten::add.Tensor")["CPU"]
    return f"CPU: {row.kind}, registered at {row.where}"


def experiment() -> dict[str, str]:
    """a + b before, inside and after the registration."""
    a, b = torch.ones(2, 3), torch.full((2, 3), 2.0)
    calls = []
    report = {"before": cpu_row()}
    with kernel_for_key("aten::add.Tensor", "CPU", make_my_add(calls)):
        report["inside the block"] = cpu_row()
        result = a + b
        report["a + b inside the block"] = f"{result[0].tolist()}; my_add_cpu called {len(calls)} time(s)"
        on_meta = a.to("meta") + b.to("meta")
        report["a + b on meta inside the block"] = f"shape {tuple(on_meta.shape)}; calls now {len(calls)}"
    report["after the block"] = cpu_row()
    a + b
    report["a + b after the block"] = f"calls now {len(calls)}"
    return report


def main():
    for label, value in experiment().items():
        print(f"{label:32} {value}")


def claim_scoped_kernel(main):
    """#registration: inside the block a + b on CPU runs my_add_cpu (the row points into torch/library.py);
    meta tensors still reach their kernel; after the block the generated kernel is back."""
    before = main.line("before ").split(None, 1)[1]
    after = next(line for line in main.lines if line.startswith("after the block ")).split(None, 3)[3]
    return ("torch/library.py" in next(line for line in main.lines if line.startswith("inside the block ")) and "my_add_cpu called 1 time(s)" in main
            and main.line("on meta inside").endswith("calls now 1") and before == after
            and "RegisterCPU_" in before and main.line("a + b after the block").endswith("calls now 1"))
