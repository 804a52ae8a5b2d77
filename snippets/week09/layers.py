"""`a + b` seen at each layer: Python frontend, dispatcher, ATen, backend."""

import torch

from snippets.phase25.lab00.dispatch_log import dispatched_ops, function_calls
from snippets.phase25.theory01.cuda_gemm import kernels_launched
from snippets.phase25.theory01.dispatch_table import call_key_set, format_rows, names, walk
from snippets.phase25.theory01.native_functions import trimmed

DEVICES = ("cpu", "cuda")


def add(a, b):
    return a + b


def layers(device: str) -> dict[str, list[str]]:
    """What each layer shows for one `a + b` on two (4, 8) float32 tensors on `device`."""
    a = torch.randn(4, 8, device=device)
    b = torch.randn(4, 8, device=device)
    if device == "cuda":
        backend = [f"{count} x {name[:120]}" for name, count in kernels_launched(add, a, b)]
    else:
        backend = [f"a vectorized loop in ATen, compiled for this CPU: {torch.backends.cpu.get_cpu_capability()}"]
    return {
        "1. Python frontend (TorchFunctionMode)": [f"torch.Tensor.{name}" for name in function_calls(add, a, b)],
        "2. dispatcher: operator and key set": [
            ", ".join(dispatched_ops(add, a, b)), ", ".join(names(call_key_set(a, b)))],
        "3. dispatch table rows visited": [row[2:] for row in format_rows(walk("aten::add.Tensor", call_key_set(a, b))).splitlines()],
        "4. ATen: how the kernel is declared": trimmed("add.out").splitlines(),
        "5. backend": backend,
    }


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    print(f"a + b on {device}\n")
    for layer, lines in layers(device).items():
        print(layer)
        for line in lines:
            print(f"    {line}")
