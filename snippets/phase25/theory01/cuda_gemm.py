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


def claim_no_cutlass(main):
    """#gemm-gpu: the names in this recording are gemmSN, xmma and nvjet kernels; none of them has cutlass in its name."""
    kernels = [line for line in main.lines if " x " in line and "Memset" not in line and "(" not in line.split(" x ")[0]]
    return "cutlass" not in main.text.lower() and all(
        re.search(r"gemmSN|xmma|nvjet", line) for line in kernels) and len(kernels) == 7


def claim_shape_and_dtype(main):
    """#gemm-gpu: the kernel depends on the shape (the tiny LM head and the large square product do not get the same one) and on the dtype."""
    blocks = {}
    for line in main.lines:
        if line.endswith(":") and ("F.linear" in line or "torch.matmul" in line):
            current = line
            blocks[current] = []
        elif line.startswith("    1 x ") and "Memset" not in line:
            blocks[current].append(line.split(" x ", 1)[1])
    kernels = [kernel for found in blocks.values() for kernel in found]
    return len(blocks) == 7 and len(set(kernels)) == len(kernels) == 7


def claim_float32_off_tensor_cores(main):
    """#gemm-gpu: float32 stays off the tensor cores at the default precision, which the first line prints; precision 'high' lets cuBLAS use a TF32 kernel; bfloat16 and float16 get cuBLASLt's nvjet kernels."""
    float32 = main.between("(4096, 4096), torch.float32:", "torch.matmul").text
    tf32 = main.between("precision 'high' (TF32):").text
    halves = [main.between(f"(600,), torch.{dtype}:", "\n").lines[0] for dtype in ("bfloat16", "float16")]
    return (main.lines[0].endswith("float32 matmul precision: 'highest'") and "ffma" in float32
            and "tf32" not in float32 and "tf32" in tf32 and all("nvjet" in line for line in halves))


def claim_recorded_on_2_11(main):
    """#gemm-gpu: cuda/Blas.cpp is linked at v2.11.0, the torch that made the recording."""
    return main.versions["torch"].startswith("2.11.")
