"""The backend layer's cuDNN, where it really runs: a conv2d on CUDA tensors, its ATen ops and GPU kernels."""

import warnings

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

from snippets.phase25.theory01.cuda_gemm import short

DEVICES = ("cuda",)
TIMEOUT = 60


def conv_trace() -> tuple[list[str], list[str]]:
    """(ATen ops in call order, GPU kernels) of one F.conv2d on (8, 3, 64, 64) float32 CUDA input, 16 3x3 filters,
    after one warm-up call."""
    x = torch.randn(8, 3, 64, 64, device="cuda")
    w = torch.randn(16, 3, 3, 3, device="cuda")
    F.conv2d(x, w, padding=1)
    torch.cuda.synchronize()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*Profiler clears events.*")
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            F.conv2d(x, w, padding=1)
            torch.cuda.synchronize()
    events = prof.events()
    ops = [e.name for e in events if e.device_type == torch.autograd.DeviceType.CPU and e.name.startswith("aten::")]
    kernels = [e.name for e in events if e.device_type == torch.autograd.DeviceType.CUDA]
    return ops, kernels


def main():
    ops, kernels = conv_trace()
    print(f"F.conv2d on {torch.cuda.get_device_name()}; cuDNN {torch.backends.cudnn.version()}, "
          f"enabled: {torch.backends.cudnn.enabled}")
    print("ATen ops, in call order:")
    print(f"    {' -> '.join(dict.fromkeys(ops))}")
    print("GPU kernels:")
    for name in kernels:
        print(f"    {short(name)}")


def claim_cudnn_runs(main):
    """#layers: cuDNN runs for a convolution on a GPU: conv2d reaches aten::cudnn_convolution, which launches the
    kernels listed below it."""
    return ("enabled: True" in main and "aten::cudnn_convolution" in main.line("aten::conv2d")
            and len(main.between("GPU kernels:").lines) >= 1)
