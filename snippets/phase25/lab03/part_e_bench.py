"""Part E: eager against compiled, timed honestly: warm-up first, one shape per compile, the GPU synchronized."""

import time

import torch
from torch._inductor.codecache import PyCodeCache
from torch._inductor.utils import run_and_get_code

from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True
DEVICES = ("cpu", "cuda")
BATCHES = {"cpu": (2, 256), "cuda": (2, 32768)}


def synchronize(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def per_call_us(fn, device: str, loop_s: float = 0.05, repeats: int = 5) -> float:
    """Best of `repeats` timed loops (each about `loop_s` long), in µs per call, after a warm-up."""
    for _ in range(10):
        fn()
    synchronize(device)
    start = time.perf_counter()
    fn()
    synchronize(device)
    calls = max(10, min(5000, int(loop_s / (time.perf_counter() - start))))
    best = float("inf")
    for _ in range(repeats):
        synchronize(device)
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        synchronize(device)
        best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e6


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


def timings(device: str) -> dict[int, dict[str, float]]:
    """Batch size -> variant -> µs per call, under torch.no_grad()."""
    table = {}
    with torch.no_grad():
        for batch in BATCHES[device]:
            model, x = model_and_input(batch, device)
            table[batch] = {name: per_call_us(fn, device) for name, fn in variants(model, x, device).items()}
    return table


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.set_num_threads(1)  # one CPU thread for eager and compiled alike: like for like, and steadier
    where = torch.cuda.get_device_name() if device == "cuda" else "CPU, 1 thread"
    print(f"µs per call of TinyHead on {where} (best of 5 timed loops; these numbers vary run to run)\n")
    for batch, row in timings(device).items():
        eager = row["eager"]
        print(f"batch {batch}:")
        for name, us in row.items():
            ratio = "" if name == "eager" else f"  {us / eager:5.2f}x eager"
            print(f"  {name:30} {us:9.1f} µs{ratio}")
