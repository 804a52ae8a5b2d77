"""9.5, the production slice: timing GPU work without torch.cuda.synchronize() measures the queue, not the work."""

import time

import torch
from torch.utils import benchmark

DEVICES = ("cuda",)
TIMEOUT = 60
N = 8192
REPS = 10


def without_sync(a, b) -> float:
    """Milliseconds per matmul as a naive timer reports it: the calls only enqueue kernels."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(REPS):
        a @ b
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()  # let the queued work finish before anything else is timed
    return elapsed / REPS * 1e3


def with_sync(a, b) -> float:
    """Milliseconds per matmul with the discipline: synchronize before starting and before stopping the clock."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(REPS):
        a @ b
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / REPS * 1e3


def with_events(a, b) -> float:
    """Milliseconds per matmul measured on the GPU's own clock with CUDA events."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(REPS):
        a @ b
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / REPS


def with_benchmark_timer(a, b) -> float:
    """Milliseconds per matmul from torch.utils.benchmark, which synchronizes CUDA for you."""
    timer = benchmark.Timer(stmt="a @ b", globals={"a": a, "b": b})
    return timer.blocked_autorange(min_run_time=1.0).median * 1e3


def main():
    a = torch.randn(N, N, device="cuda")
    b = torch.randn(N, N, device="cuda")
    for _ in range(3):  # warm-up: cuBLAS handle, kernel selection, clocks
        a @ b
    torch.cuda.synchronize()
    naive = without_sync(a, b)
    synced = with_sync(a, b)
    print(f"{torch.cuda.get_device_name(0)}: ({N}, {N}) @ ({N}, {N}) float32, {REPS} calls per measurement")
    rows = {
        "perf_counter, no synchronize": naive,
        "perf_counter, synchronize before and after": synced,
        "CUDA events": with_events(a, b),
        "torch.utils.benchmark.Timer": with_benchmark_timer(a, b),
    }
    for label, ms in rows.items():
        print(f"  {label:44} {ms:9.3f} ms per call")
    print(f"  {'ratio, synchronized / not synchronized':44} {synced / naive:9.1f}x")
    print(f"  {'throughput from the synchronized time':44} {2 * N**3 / (synced * 1e-3) / 1e12:9.1f} TFLOP/s")
