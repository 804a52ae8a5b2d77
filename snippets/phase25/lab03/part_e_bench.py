"""Part E: eager against compiled, timed honestly: warm-up first, one shape per compile, the GPU synchronized,
variants timed in interleaved rounds and compared against their own spread."""

import statistics
import time
import warnings
from collections import Counter

import torch
from torch._inductor.codecache import PyCodeCache
from torch._inductor.utils import run_and_get_code
from torch.profiler import ProfilerActivity, profile

from snippets.phase25.theory03.tiny_head import model_and_input
from snippets.timing import compare, interleaved, spread

ISOLATE = True
DEVICES = ("cpu", "cuda")
BATCHES = {"cpu": (2, 256), "cuda": (2, 32768)}
ROUNDS = 9
OVERHEAD = "torch.compile minus call() only"


def synchronize(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def loop_length(fn, device: str, loop_s: float) -> int:
    """Calls per timed loop, so that one loop lasts about `loop_s`, after a warm-up of 10 calls."""
    for _ in range(10):
        fn()
    synchronize(device)
    start = time.perf_counter()
    fn()
    synchronize(device)
    return max(10, min(5000, int(loop_s / (time.perf_counter() - start))))


def rounds(functions: dict, device: str, loop_s: float = 0.02, count: int = ROUNDS) -> dict[str, list[float]]:
    """name -> µs per call in each of `count` interleaved rounds (one timed loop per function per round)."""
    calls = {name: loop_length(fn, device, loop_s) for name, fn in functions.items()}

    def per_call_us(name):
        synchronize(device)
        start = time.perf_counter()
        for _ in range(calls[name]):
            functions[name]()
        synchronize(device)
        return (time.perf_counter() - start) / calls[name] * 1e6

    return interleaved({name: name for name in functions}, per_call_us, count)


def variants(model, x, device: str) -> dict:
    """The callables to time: eager, torch.compile, and the generated `call()` alone (no Dynamo, no guards)."""
    torch._dynamo.reset()
    compiled = torch.compile(model, dynamic=False)
    _, (code,) = run_and_get_code(compiled, x)
    generated = PyCodeCache.load(code)
    args = [model.fc.weight, model.fc.bias, x]
    torch.testing.assert_close(generated.call(list(args))[0], model(x))  # the right arguments, in order
    found = {"eager": lambda: model(x), "torch.compile": lambda: compiled(x),
             "generated call() only": lambda: generated.call(list(args))}
    if device == "cuda":
        graphed = torch.compile(model, mode="reduce-overhead", dynamic=False)
        found["torch.compile reduce-overhead"] = lambda: graphed(x)
    return found


def timings(device: str) -> dict[int, dict[str, list[float]]]:
    """Batch size -> variant -> µs per call in each round, under torch.no_grad()."""
    table = {}
    with torch.no_grad():
        for batch in BATCHES[device]:
            model, x = model_and_input(batch, device)
            table[batch] = rounds(variants(model, x, device), device)
    return table


def medians(row: dict[str, list[float]]) -> dict[str, float]:
    return {name: statistics.median(times) for name, times in row.items()}


def per_call_activity(fn, calls: int = 20) -> dict[str, Counter]:
    """What one call does on a GPU, averaged over `calls` calls: the ATen ops and CUDA API calls on the
    host, and the kernels and copies on the GPU. Five warm-up calls first: with CUDA graphs, the first
    call compiles and warms up, the second records the graph, and replays start from the third."""
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*Profiler clears events.*")
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(calls):
                fn()
            torch.cuda.synchronize()
    found = {"aten ops": Counter(), "CUDA API": Counter(), "on the GPU": Counter()}
    for event in prof.key_averages():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            found["on the GPU"]["kernels and copies"] += event.count
        elif event.key.startswith("aten::"):
            found["aten ops"][event.key] += event.count
        elif event.key.startswith("cu") and ("Launch" in event.key or "Memcpy" in event.key):
            found["CUDA API"][event.key] += event.count
    return {kind: Counter({name: count / calls for name, count in counts.items()}) for kind, counts in found.items()}


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.set_num_threads(1)  # one CPU thread for eager and compiled alike: like for like, and steadier
    where = torch.cuda.get_device_name() if device == "cuda" else "CPU, 1 thread"
    print(f"µs per call of TinyHead on {where}: median of {ROUNDS} interleaved rounds, and their spread\n")
    for batch, row in timings(device).items():
        median = medians(row)
        print(f"batch {batch}:")
        for name, us in median.items():
            ratio = "" if name == "eager" else f"  {us / median['eager']:5.2f}x eager"
            print(f"  {name:31} {us:9.1f} µs  spread {spread(row[name]):5.1%}{ratio}")
        print(f"  {OVERHEAD:31} {median['torch.compile'] - median['generated call() only']:9.1f} µs")
        for name in row:
            if name != "eager":
                print(f"    {name} vs eager: {compare(row, 'eager', name)}")
    if device == "cuda":
        print("\nbatch 2, what one call does (profiler, average of 20 calls):")
        with torch.no_grad():
            model, x = model_and_input(2, device)
            for name, fn in variants(model, x, device).items():
                print(f"  {name}:")
                for kind, counts in per_call_activity(fn).items():
                    listed = ", ".join(f"{op} x{n:g}" for op, n in sorted(counts.items()))
                    print(f"    {kind:11} {listed or 'none'}")


def claim_cpu_small_batch_slower(main):
    """#part-e: On CPU at batch 2 the compiled model is not faster than eager: the verdict line says eager is faster, or calls a tie when the run was too noisy to tell."""
    if main.device != "cpu":
        return True
    verdict = main.between("batch 2:", "batch 256:").line("torch.compile vs eager:")
    return "eager is " in verdict or " tie " in verdict


def claim_call_alone_costs_what_eager_costs(main):
    """#part-e: At batch 2 the generated code alone costs about what eager costs: the two lie far closer to each
    other than to `torch.compile`, so the overhead line is most of the compiled model's time."""
    rows = main.between("batch 2:", "batch ")
    eager, compiled = rows.number("  eager "), rows.number("  torch.compile  ")
    alone, overhead = rows.number("generated call() only  "), rows.number("minus call() only")
    return abs(alone - eager) < min(abs(compiled - alone), abs(compiled - eager)) / 2 and overhead > compiled / 2


def claim_large_batch_no_win(main):
    """#part-e: at batch 256 the compiled model still does not beat eager: its verdict is a loss or a tie."""
    if main.device != "cpu":
        return True
    verdict = main.between("batch 256:").line("torch.compile vs eager:")
    return " tie " in verdict or "eager is " in verdict


def claim_reduce_overhead_no_gain(main):
    """#part-e: Yet at batch 2 eager beats it, and it is no faster than the default mode: slower, or a tie within
    their spreads."""
    if main.device != "cuda":
        return True
    rows = main.between("batch 2:", "batch 32768:")
    found = [re.match(r"  (\S.*?)\s{2,}([\d.]+) µs\s+spread\s+([\d.]+)%", line) for line in rows.lines]
    timed = {m.group(1): (float(m.group(2)), float(m.group(3)) / 100) for m in found if m}
    (ro, ro_spread), (tc, tc_spread) = timed["torch.compile reduce-overhead"], timed["torch.compile"]
    margin = max(ro_spread, tc_spread, 0.01)
    return "eager is " in rows.line("reduce-overhead vs eager:") and (ro >= tc or tc / ro - 1 <= margin)


def claim_reduce_overhead_replays_and_copies(main):
    """#part-e: each reduce-overhead call replays one graph (cudaGraphLaunch) and copies x into the graph's input."""
    if main.device != "cuda":
        return True
    calls = main.between("  torch.compile reduce-overhead:")
    return "cudaGraphLaunch x1," in calls.line("CUDA API") + "," and "copy" in calls.line("aten ops")



def claim_eager_seven_ops_two_launches(main):
    """#part-e: in the GPU profile an eager call is seven ATen ops (`linear`, `t`, `transpose`, `as_strided`, `addmm`, `softmax`, `_softmax`) and two kernel launches."""
    if main.device != "cuda":
        return True
    eager = main.between("what one call does", "  torch.compile:")
    ops = eager.line("aten ops").split("aten ops")[1].split(",")
    names = {op.split()[0] for op in ops}
    return (len(ops) == 7 and all(op.strip().endswith(" x1") for op in ops)
            and names == {f"aten::{n}" for n in ("linear", "t", "transpose", "as_strided", "addmm", "softmax", "_softmax")}
            and eager.line("CUDA API").split()[2:] == ["cudaLaunchKernel", "x2"])


def claim_large_batch_overhead_small(main):
    """#part-e: At batch 32768 the overhead line is under a fifth of eager's time."""
    if main.device != "cuda":
        return True
    rows = main.between("batch 32768:", "what one call does")
    return rows.number("minus call() only") < 0.2 * rows.number("  eager ")


def claim_cpu_not_faster(main):
    """#lab-03: Part E settles it for this tiny model on CPU: not faster (at each batch the verdict is a loss or a
    tie)."""
    if main.device != "cpu":
        return True
    verdicts = [line for line in main.lines if line.strip().startswith("torch.compile vs eager:")]
    return len(verdicts) == 2 and all("eager is " in v or " tie " in v for v in verdicts)


def claim_versions(main):
    """#setup: torch 2.13 on CPU; GPU outputs recorded on an NVIDIA H100 or H200 with torch 2.11 and Triton 3.6."""
    if main.device == "cpu":
        return main.versions["torch"].startswith("2.13")
    return (main.versions["torch"].startswith("2.11") and main.versions["triton"].startswith("3.6")
            and ("H100" in main.gpu or "H200" in main.gpu))
