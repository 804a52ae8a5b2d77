"""`a + b` seen at each layer: Python frontend, dispatcher, ATen, backend."""

import torch

from snippets.phase25.lab00.dispatch_log import dispatched_ops, function_calls
from snippets.phase25.theory01.cuda_gemm import kernels_launched, short
from snippets.phase25.theory01.dispatch_table import call_key_set, format_rows, names, walk
from snippets.phase25.theory01.native_functions import trimmed

DEVICES = ("cpu", "cuda")


def add(a, b):
    """The call this section traces."""
    return a + b


def chain(fn, args, op: str, declaration: str, cpu_backend: str) -> dict[str, list[str]]:
    """What each layer shows for one call fn(*args): frontend, dispatcher, table rows, declaration, backend."""
    if args[0].device.type == "cuda":
        backend = [f"{count} x {short(name)}" for name, count in kernels_launched(fn, *args)]
    else:
        backend = [cpu_backend]
    return {
        "1. Python frontend (TorchFunctionMode)": function_calls(fn, *args),
        "2. dispatcher: ATen ops (TorchDispatchMode) and key set": [
            ", ".join(dispatched_ops(fn, *args)), ", ".join(names(call_key_set(*args)))],
        f"3. rows of {op} visited": [row[2:] for row in format_rows(walk(op, call_key_set(*args))).splitlines()],
        f"4. ATen: how {declaration} is declared": trimmed(declaration).splitlines(),
        "5. backend": backend,
    }


def layers(device: str) -> dict[str, list[str]]:
    """The chain of one `a + b` on two (4, 8) float32 tensors on `device`."""
    a = torch.randn(4, 8, device=device)
    b = torch.randn(4, 8, device=device)
    loop = f"a vectorized loop in ATen, compiled for this CPU: {torch.backends.cpu.get_cpu_capability()}"
    return chain(add, (a, b), "aten::add.Tensor", "add.out", loop)


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    print(f"a + b on {device}\n")
    for layer, lines in layers(device).items():
        print(layer)
        for line in lines:
            print(f"    {line}")
