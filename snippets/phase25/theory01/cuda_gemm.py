"""On a GPU, addmm and mm end in cuBLAS: the kernel names the profiler records, by dtype and shape."""

import warnings
from collections import Counter

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

from snippets.phase25.lab00.part_a_baseline import make_inputs

DEVICES = ("cuda",)
TIMEOUT = 60


def kernels_launched(fn, *args) -> list[tuple[str, int]]:
    """(GPU kernel name, launches) for one call of fn(*args), after one warm-up call; sorted by name."""
    fn(*args)
    torch.cuda.synchronize()
    with warnings.catch_warnings():
        # torch 2.11 warns once per process that a profiler keeps only its last cycle: expected here.
        warnings.filterwarnings("ignore", message=".*Profiler clears events.*")
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            fn(*args)
            torch.cuda.synchronize()
    names = Counter(e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
    return sorted(names.items())


def short(name: str, width: int = 160) -> str:
    """A kernel name cut to `width` characters: template arguments make some of them very long."""
    return name if len(name) <= width else name[: width - 3] + "..."


def cases() -> dict[str, tuple]:
    """The LM head in three dtypes, then one large square matmul in four precisions."""
    x, W, b = (t.detach() for t in make_inputs(device="cuda"))
    big_a = torch.randn(4096, 4096, device="cuda")
    big_b = torch.randn(4096, 4096, device="cuda")
    found = {}
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        found[f"F.linear (2, 64) x (600, 64) + (600,), {dtype}"] = (F.linear, x.to(dtype), W.to(dtype), b.to(dtype))
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        found[f"torch.matmul (4096, 4096) @ (4096, 4096), {dtype}"] = (torch.matmul, big_a.to(dtype), big_b.to(dtype))
    return found


def tf32_matmul(a, b):
    """The same float32 matmul with TF32 tensor cores allowed: float32 matmul precision "high"."""
    previous = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high")
    try:
        return torch.matmul(a, b)
    finally:
        torch.set_float32_matmul_precision(previous)


def main():
    print(f"{torch.cuda.get_device_name(0)}; float32 matmul precision: {torch.get_float32_matmul_precision()!r}")
    all_cases = cases()
    square = all_cases["torch.matmul (4096, 4096) @ (4096, 4096), torch.float32"][1:]
    all_cases["torch.matmul (4096, 4096) @ (4096, 4096), float32 with precision 'high' (TF32)"] = (tf32_matmul, *square)
    for label, (fn, *args) in all_cases.items():
        print(f"\n{label}:")
        for name, count in kernels_launched(fn, *args):
            print(f"    {count} x {short(name)}")
