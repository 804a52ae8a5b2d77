"""Step 3 on a GPU: the kernels that add launches, named after the functors torchgen generated."""

import torch

from snippets.phase25.theory01.cuda_gemm import kernels_launched, short

DEVICES = ("cuda",)
TIMEOUT = 60


def cases() -> dict[str, tuple]:
    """Two tensors, a tensor and a Python scalar, a tensor and a 0-dim CPU tensor, and float16."""
    a = torch.randn(4096, 4096, device="cuda")
    b = torch.randn(4096, 4096, device="cuda")
    return {
        "a + b              (two CUDA tensors)": (torch.add, a, b),
        "a + 2.0            (a Python scalar)": (torch.add, a, 2.0),
        "a + torch.tensor(2.0)  (a 0-dim CPU tensor)": (torch.add, a, torch.tensor(2.0)),
        "a.half() + b.half()": (torch.add, a.half(), b.half()),
    }


def main():
    for label, (fn, *args) in cases().items():
        print(label)
        for name, count in kernels_launched(fn, *args):
            print(f"    {count} x {short(name)}")
