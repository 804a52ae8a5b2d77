"""GPU benchmark: torch.softmax, torch.compile and the course's kernels, forward and backward,
beside a device-to-device copy that moves as many bytes.

Medians of triton.testing.do_bench, which empties the L2 cache before every timed call, so each
call reads its inputs from device memory. Every softmax is captured in a CUDA graph and timed as
its replay: the GPU's work without the Python that launches it, whose cost depends on the host's
CPU. The copy is timed as called: it is one memcpy, with no Python to strip, and as a graph node a
large copy measured a third slower (TUNING.md). The contenders take turns over several rounds, so
a drift of the clock or the temperature falls on all of them alike. Timings are the point of this snippet.
"""

import statistics

import torch
import triton

from snippets.phase24.triton_softmax import kernels
from snippets.phase24.triton_softmax.results import COPY, IMPLS, Timing, format_table, mebibytes

DEVICES = ("cuda",)
ISOLATE = True
TIMEOUT = 300

SHAPES = [(2, 600), (256, 600), (4096, 600), (65536, 600), (4096, 4096), (8192, 4096),
          (4096, 32000), (32768, 8192)]
TENSORS_MOVED = {"forward": 2, "backward": 3}  # x read, y written; y and dy read, dx written
TARGET_SHARE = 0.95  # of the bandwidth of a copy moving the same bytes, for tensors of TARGET_MIB and more
TARGET_MIB = 64
FASTEST_FROM_ROWS = 4096
ROUNDS = 3  # each contender timed once per round, the rounds interleaved; the median round is kept


def median_ms(fn) -> float:
    """Median time of one call of `fn`, in milliseconds, each call starting with a cold L2."""
    return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")


def copier(n_bytes: int):
    """A device-to-device copy that reads n_bytes / 2 bytes and writes as many."""
    src = torch.randn(n_bytes // 8, device="cuda")
    dst = torch.empty_like(src)
    return lambda: dst.copy_(src)


def graphed(fn):
    """The replay of a CUDA graph that captured one call of `fn` (after warm-up calls that compile
    and allocate): the same kernels, launched without running `fn`'s Python again."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph.replay


def interleaved_ms(functions: dict, rounds: int = ROUNDS) -> dict[str, float]:
    """Each function's median time over `rounds` rounds in which every function is timed in turn."""
    times = {name: [] for name in functions}
    for _ in range(rounds):
        for name, fn in functions.items():
            times[name].append(median_ms(fn))
    return {name: statistics.median(ms) for name, ms in times.items()}


def softmax_backward_data(y: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    """The ATen kernel that autograd runs for softmax's backward."""
    return torch.ops.aten._softmax_backward_data(dy, y, -1, y.dtype)


def forward_softmax(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)


def contenders(pass_name: str) -> dict:
    """torch.softmax, torch.compile and ours for one pass, each a function of the pass's inputs."""
    eager = forward_softmax if pass_name == "forward" else softmax_backward_data
    ours = kernels.softmax if pass_name == "forward" else kernels.softmax_backward
    return dict(zip(IMPLS[1:], (eager, torch.compile(eager, dynamic=False), ours), strict=True))


def measure(rows: int, cols: int) -> list[Timing]:
    """Forward and backward timings of the copy and of every contender on one float32 shape."""
    x = torch.randn(rows, cols, device="cuda")
    inputs = {"forward": (x,), "backward": (torch.softmax(x, dim=-1), torch.randn_like(x))}
    timings = []
    for pass_name, args in inputs.items():
        n_bytes = TENSORS_MOVED[pass_name] * x.numel() * x.element_size()
        torch._dynamo.reset()  # one graph specialised to this shape, as torch.compile(dynamic=False) builds
        functions = {COPY: copier(n_bytes)}
        functions |= {impl: graphed(lambda fn=fn: fn(*args)) for impl, fn in contenders(pass_name).items()}
        times = interleaved_ms(functions)
        timings += [Timing(pass_name, rows, cols, impl, ms * 1000, n_bytes / ms / 1e6) for impl, ms in times.items()]
    return timings


def target_report(timings: list[Timing]) -> list[str]:
    """The two performance targets per pass, checked on the measured timings."""
    lines = []
    for pass_name in ("forward", "backward"):
        by_shape = {}
        for t in timings:
            if t.pass_name == pass_name:
                by_shape.setdefault(t.shape, {})[t.impl] = t
        large = [cells for cells in by_shape.values() if mebibytes(cells[COPY].rows, cells[COPY].cols) >= TARGET_MIB]
        worst = min(large, key=lambda cells: cells[COPY].microseconds / cells[IMPLS[3]].microseconds)
        share = worst[COPY].microseconds / worst[IMPLS[3]].microseconds
        lines.append(f"{pass_name} >= {TARGET_MIB} MiB: ours >= {TARGET_SHARE:.0%} of a same-bytes copy? "
                     f"{'met' if share >= TARGET_SHARE else 'MISSED'} (lowest {share:.1%}, {worst[COPY].shape})")
        slower = []
        for shape, cells in by_shape.items():
            best = min(IMPLS[1:3], key=lambda impl: cells[impl].microseconds)
            ours, theirs = cells[IMPLS[3]].microseconds, cells[best].microseconds
            if cells[COPY].rows >= FASTEST_FROM_ROWS and theirs < ours:
                slower.append(f"{shape} ({best} {ours / theirs - 1:.1%} faster)")
        lines.append(f"{pass_name} >= {FASTEST_FROM_ROWS} rows: ours the fastest of the three? "
                     + ("met" if not slower else "MISSED at " + ", ".join(slower)))
    return lines


def main():
    peak_gbps = 2**31 / median_ms(copier(2**31)) / 1e6
    timings = [t for rows, cols in SHAPES for t in measure(rows, cols)]
    print(format_table(peak_gbps, timings))
    print()
    print("\n".join(target_report(timings)))
