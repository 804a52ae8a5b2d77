"""Step 4: torch.matmul(a, b) traced like a + b, on a GPU, in float32 and bfloat16."""

import torch

from snippets.phase25.lab00.dispatch_log import dispatched_ops
from snippets.phase25.theory01.cuda_gemm import kernels_launched, short
from snippets.phase25.theory01.dispatch_table import call_key_set, format_rows, walk

DEVICES = ("cuda",)
TIMEOUT = 60


def trace(dtype: torch.dtype, n: int = 4096) -> dict[str, list[str]]:
    """Operators, dispatch rows and GPU kernels of one (n, n) @ (n, n) matmul in `dtype`."""
    a = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, n, device="cuda", dtype=dtype)
    return {
        "ATen ops below the composite matmul": dispatched_ops(torch.matmul, a, b),
        "rows of aten::mm visited": [row[2:] for row in format_rows(walk("aten::mm", call_key_set(a, b))).splitlines()],
        "GPU kernels": [f"{count} x {short(name)}" for name, count in kernels_launched(torch.matmul, a, b)],
    }


def main():
    for dtype in (torch.float32, torch.bfloat16):
        print(f"torch.matmul(a, b), a and b (4096, 4096) {dtype}")
        for label, lines in trace(dtype).items():
            print(f"  {label}:")
            for line in lines:
                print(f"    {line}")
        print()


def claim_mm_cuda_kernel(main):
    """#lab-step-5: below autograd matmul is aten::mm, whose table sends the call through AutogradCUDA to the CUDA
    kernel, for both dtypes."""
    return (main.count("    aten.mm.default") == 2 and main.count("AutogradCUDA      autograd kernel") == 2
            and main.count("CUDA              kernel") == 2)


def claim_cublas_both(main):
    """#lab-step-5: the kernel calls cuBLAS for float32 as well as bfloat16; the dtype changes which cuBLAS kernel
    runs; the trace was recorded with torch 2.11, the version Blas.cpp is linked at."""
    f32, bf16 = main.between("torch.float32", "torch.bfloat16"), main.between("torch.bfloat16")
    return ("_cublas" in f32.between("GPU kernels:").text and "nvjet_sm90" in bf16.between("GPU kernels:").text
            and main.versions["torch"].startswith("2.11"))
