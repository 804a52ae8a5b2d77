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


def claim_functors_named(main):
    """#lab-step-4: the kernel names say which functor ran: CUDAFunctor_add for two tensors, CUDAFunctorOnSelf_add
    for a scalar (a Python float or a 0-dim CPU tensor)."""
    sections = main.text.split("\na")
    return (main.count("CUDAFunctor_add<float>") == 1 and main.count("CUDAFunctorOnSelf_add<float>") == 2
            and main.count("CUDAFunctor_add<c10::Half>") == 1 and len(sections) == 4)


def claim_recorded_version(main):
    """#lab-step-4: the launcher is linked at torch 2.11, the version of the GPU recording below."""
    return main.versions["torch"].startswith("2.11")
