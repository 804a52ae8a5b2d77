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


def claim_frontend_and_keys(main):
    """#layers: a TorchFunctionMode sees `add`; the tensors do not require grad, yet the autograd key is there."""
    backend = "CUDA" if main.device == "cuda" else "CPU"
    keys = main.between("2. dispatcher").lines[1].strip()
    return (main.between("1. Python frontend", "2. dispatcher").text.strip() == "add"
            and keys == f"{backend}, BackendSelect, ADInplaceOrView, Autograd{backend}")


def claim_rows(main):
    """#layers: the table sends the call through the autograd kernel, two fallthroughs, and the backend kernel,
    registered in a file generated at build time."""
    rows = [line.split() for line in main.between("3. rows", "4. ATen").lines]
    backend = "CUDA" if main.device == "cuda" else "CPU"
    return ([row[1:3] for row in rows] == [["autograd", "kernel"], ["fallthrough", "<pytorch>/aten/src/ATen/core/VariableFallbackKernel.cpp:103"],
                                          ["fallthrough", "<pytorch>/aten/src/ATen/core/BackendSelectFallbackKernel.cpp:3"], ["kernel", rows[3][2]]]
            and rows[3][0] == backend and rows[3][2].startswith(f"<pytorch>/build/aten/src/ATen/Register{backend}_"))


def claim_ufunc(main):
    """#layers: add.out is declared as a ufunc: `ufunc_inner_loop: Generic: add`."""
    return "ufunc_inner_loop:" in main and "Generic: add (AllAndComplex, BFloat16, Half, ComplexHalf)" in main


def claim_backend(main):
    """#layers: on CPU a vectorized loop compiled for the instruction set the output names; on the GPU the kernel
    the recording names, the functor generated for add."""
    backend = main.between("5. backend").text
    return ("CUDAFunctor_add<float>" in backend) if main.device == "cuda" else ("vectorized loop" in backend)


def claim_versions(main):
    """#week-09: built on CPU with torch 2.13; the recorded outputs come from an NVIDIA H100 or H200 with torch 2.11."""
    if main.device == "cpu":
        return main.versions["torch"].startswith("2.13")
    return main.versions["torch"].startswith("2.11") and ("H100" in main.gpu or "H200" in main.gpu)
