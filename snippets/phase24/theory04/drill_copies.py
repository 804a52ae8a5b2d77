"""Drill 3 on a GPU: the copies in `y = model(x.cuda()); y.cpu()`, counted by the profiler."""

from collections import Counter

import torch

from snippets.phase24.theory04.gpu_profile import cuda_events
from snippets.phase24.theory04.tiny_mlp import TinyMLP

DEVICES = ("cuda",)


def copies() -> list[tuple[str, int]]:
    """(copy event, count) for one input sent to the GPU and one output brought back."""
    torch.manual_seed(0)
    model = TinyMLP().cuda().eval()
    x = torch.randn(2, 64)
    with torch.no_grad():
        model(x.cuda()).cpu()  # warm-up: cuBLAS set-up is not part of the question
        torch.cuda.synchronize()
        events = cuda_events(lambda: model(x.cuda()).cpu())
    counts = Counter(e.name for e in events if e.name.startswith(("Memcpy", "Memset", "cudaMemcpy")))
    return sorted(counts.items())


def main():
    for name, count in copies():
        print(f"{name}: {count}")


def claim_two_copies(main):
    """#exercises: one host-to-device copy for x and one device-to-host copy for y, each one cudaMemcpyAsync; no other copy or memset (everything between stays in GPU memory)."""
    return (len(main.lines) == 3
            and main.number("Memcpy HtoD (Pageable -> Device):") == 1 and main.number("Memcpy DtoH (Device -> Pageable):") == 1
            and main.number("cudaMemcpyAsync:") == 2)
