"""The GPU kernels one TinyMLP forward launches, in launch order, as the profiler saw them."""

import torch
from torch.autograd import DeviceType

from snippets.phase24.theory04.gpu_profile import cuda_events
from snippets.phase24.theory04.tiny_mlp import TinyMLP

DEVICES = ("cuda",)


def forward_kernels() -> tuple[list[str], list[str]]:
    """(ATen ops, GPU kernels) of one forward on (2, 64) inputs, after a warm-up forward."""
    torch.manual_seed(0)
    model = TinyMLP().cuda().eval()
    x = torch.randn(2, 64, device="cuda")
    with torch.no_grad():
        model(x)  # warm-up: cuBLAS handle and workspace are created on the first GEMM
        torch.cuda.synchronize()
        events = cuda_events(lambda: model(x))
    ops = [e.name for e in events if e.device_type == DeviceType.CPU and e.name.startswith("aten::")]
    kernels = [e.name for e in events if e.device_type == DeviceType.CUDA and not e.name.startswith("Memcpy")]
    return ops, kernels


def main():
    ops, kernels = forward_kernels()
    print("ATen ops (host side):", ", ".join(ops))
    print(f"GPU kernels launched: {len(kernels)}")
    for i, name in enumerate(kernels, 1):
        print(f"  {i}. {name if len(name) <= 110 else name[:107] + '...'}")


def claim_three_kernels(main):
    """#dispatch-sequence: three kernels: each aten::addmm launches one from cuBLAS, aten::relu (through clamp_min) one element-wise kernel of ATen's own, and aten::t none."""
    kernels = main.between("GPU kernels launched").lines
    return (main.number("GPU kernels launched") == 3 and "aten::clamp_min" in main.line("ATen ops")
            and "cublas" in kernels[0] and "cublas" in kernels[2] and "at::native::" in kernels[1]
            and "elementwise" in kernels[1])
