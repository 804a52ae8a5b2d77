"""9.5, the production slice: timing GPU work without torch.cuda.synchronize() measures the queue, not the work.
The four timers are measured in interleaved rounds and compared against their own spread."""

import statistics
import time

import torch
from torch.utils import benchmark

from snippets.timing import compare, interleaved, spread

DEVICES = ("cuda",)
TIMEOUT = 60
N = 8192
REPS = 10
ROUNDS = 5


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
    return timer.blocked_autorange(min_run_time=0.5).median * 1e3


def main():
    a = torch.randn(N, N, device="cuda")
    b = torch.randn(N, N, device="cuda")
    for _ in range(3):  # warm-up: cuBLAS handle, kernel selection, clocks
        a @ b
    torch.cuda.synchronize()
    timers = {
        "perf_counter, no synchronize": without_sync,
        "perf_counter, synchronize before and after": with_sync,
        "CUDA events": with_events,
        "torch.utils.benchmark.Timer": with_benchmark_timer,
    }
    times = interleaved(timers, lambda timer: timer(a, b), ROUNDS)
    median = {label: statistics.median(row) for label, row in times.items()}
    naive, synced = median["perf_counter, no synchronize"], median["perf_counter, synchronize before and after"]
    print(f"{torch.cuda.get_device_name(0)}: ({N}, {N}) @ ({N}, {N}) float32, {REPS} calls per measurement, "
          f"median of {ROUNDS} interleaved rounds")
    for label, ms in median.items():
        print(f"  {label:44} {ms:9.3f} ms per call  spread {spread(times[label]):5.1%}")
    for label in ("CUDA events", "torch.utils.benchmark.Timer"):
        print(f"  {compare(times, 'perf_counter, synchronize before and after', label)}")
    print(f"  {'ratio, synchronized / not synchronized':44} {synced / naive:9.1f}x")
    print(f"  {'throughput from the synchronized time':44} {2 * N**3 / (synced * 1e-3) / 1e12:9.1f} TFLOP/s")


def claim_synchronized_timers_tie(main):
    """#production: CUDA events and the Timer each tie with the synchronized perf_counter, within the larger of their spreads and 1%."""
    verdicts = [line for line in main.lines if "perf_counter, synchronize before and after and " in line
                or " and perf_counter, synchronize before and after tie" in line]
    gaps = [re.search(r" tie \(([\d.]+)% apart, within the ([\d.]+)% margin\)", line) for line in verdicts]
    return len(verdicts) == 2 and all(g and float(g[1]) < float(g[2]) and float(g[2]) >= 1.0 for g in gaps)


def claim_unsynchronized_far_off(main):
    """#production: the unsynchronized timer reports over a hundred times less than the synchronized one."""
    return main.number("ratio, synchronized / not synchronized") > 100
