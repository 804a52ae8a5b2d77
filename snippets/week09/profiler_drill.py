"""9.4: profile training steps of the grammar MiniGPT with CPU (and CUDA) activities, shapes and stacks,
and pick out by code every op above 5% of the total time. Timings change from run to run."""

import re
import warnings
from collections import Counter

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

from snippets.minigpt.torch_model import load_pretrained, sample_batch

DEVICES = ("cpu", "cuda")
TIMEOUT = 60
THRESHOLD = 0.05
BATCH = {"cpu": 8, "cuda": 256}


def training_steps(device: str, batch: int, steps: int = 3):
    """Profile `steps` forward + backward passes of the MiniGPT on (batch, 64) token ids, next-token loss."""
    model = load_pretrained().train().to(device)
    ids = sample_batch(batch, model.config.block_size + 1, seed=0).to(device)
    inputs, targets = ids[:, :-1], ids[:, 1:]
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])

    def step():
        logits = model(inputs)
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
        loss.backward()
        model.zero_grad(set_to_none=True)

    step()  # warm-up, outside the profile
    with warnings.catch_warnings():
        # torch 2.11 warns once per process that a profiler keeps only its last cycle: expected here.
        warnings.filterwarnings("ignore", message=".*Profiler clears events.*")
        with profile(activities=activities, record_shapes=True, with_stack=True) as prof:
            for _ in range(steps):
                step()
            if device == "cuda":
                torch.cuda.synchronize()
    return prof


def self_times(prof, device: str) -> list[tuple[str, float, int, str]]:
    """(op, self time in µs, calls, input shapes) per op and shape, longest first.

    On a GPU the time is that of the kernels each op launched itself; the kernels' own rows are left
    out so that no time is counted twice.
    """
    attribute = "self_device_time_total" if device == "cuda" else "self_cpu_time_total"
    rows = [(e.key, getattr(e, attribute), e.count, str(e.input_shapes))
            for e in prof.key_averages(group_by_input_shape=True)
            if e.device_type == torch.autograd.DeviceType.CPU and getattr(e, attribute) > 0]
    return sorted(rows, key=lambda row: -row[1])


def above_threshold(rows, threshold: float = THRESHOLD) -> list[tuple[str, float]]:
    """(op, share of the total) for every op, all its shapes together, above `threshold` of the total."""
    total = sum(row[1] for row in rows)
    per_op = {}
    for name, time, _, _ in rows:
        per_op[name] = per_op.get(name, 0.0) + time
    return sorted(((name, time / total) for name, time in per_op.items() if time / total > threshold),
                  key=lambda item: -item[1])


def accumulate_grad(prof) -> dict:
    """The AccumulateGrad nodes backward ran: calls, the ops they called, self CPU time (all and the largest
    single call) and the GPU kernel time they caused."""
    events = [e for e in prof.events() if e.name == "torch::autograd::AccumulateGrad"]
    return {"calls": len(events),
            "below": Counter(child.name for e in events for child in e.cpu_children),
            "self_us": sum(e.self_cpu_time_total for e in events),
            "largest_us": max((e.self_cpu_time_total for e in events), default=0.0),
            "device_us": sum(e.self_device_time_total for e in events)}


def call_site(prof, op: str) -> list[str]:
    """Python frames above the first call of `op` that has any, innermost first (with_stack).

    torch 2.13 records each Python function call as an event of its own, a parent of the op; older
    versions attach the frames to the op as `event.stack`. Both are read; frames stop at this file.
    """
    for event in prof.events():
        if event.name != op:
            continue
        frames, parent = list(event.stack), event.cpu_parent
        while parent is not None:
            if ".py(" in parent.name or parent.name.startswith("<built-in"):
                frames.append(parent.name)
            parent = parent.cpu_parent
        frames = [re.sub(r" at 0x[0-9a-f]+", "", f) for f in frames]  # no addresses on the page
        frames = [f[f.find("snippets/"):] if "snippets/" in f else f for f in frames]
        mine = [i for i, f in enumerate(frames) if "profiler_drill.py" in f]
        if mine:
            return frames[: mine[0] + 1]
    return []


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    batch = BATCH[device]
    prof = training_steps(device, batch)
    rows = self_times(prof, device)
    total = sum(row[1] for row in rows)
    clock = "GPU kernel" if device == "cuda" else "CPU"
    print(f"3 training steps of the grammar MiniGPT on {device}, batch {batch} x 64 tokens; total self {clock} time {total / 1000:.2f} ms\n")
    print(f"{'op':34} {'self µs':>9} {'share':>6} {'calls':>5}  input shapes")
    for name, time, calls, shapes in rows[:10]:
        print(f"{name[:34]:34} {time:9.0f} {time / total:6.1%} {calls:5}  {shapes[:48]}")
    addmm = [shapes for name, _, _, shapes in rows if name == "aten::addmm"]
    print(f"\nrecord_shapes: aten::addmm in {len(addmm)} rows, one per distinct input shapes:")
    for shapes in sorted(addmm):
        print(f"    {shapes}")
    hot = above_threshold(rows)
    print(f"\nOps above {THRESHOLD:.0%} of the total, all their shapes together:")
    for name, share in hot:
        print(f"    {name:34} {share:6.1%}")
    grads, parameters = accumulate_grad(prof), len(list(load_pretrained().parameters()))
    cpu_total = sum(row[1] for row in self_times(prof, "cpu"))
    print("\nAccumulateGrad, the node that hands each parameter its gradient:")
    print(f"    calls           {grads['calls']} = {parameters} parameters x 3 steps: {grads['calls'] == 3 * parameters}")
    print(f"    ops below it    {', '.join(f'{op} x{n}' for op, n in sorted(grads['below'].items())) or 'none'}")
    print(f"    self CPU time   {grads['self_us']:.0f} µs in all ({grads['self_us'] / cpu_total:.1%} of the CPU total), "
          f"{grads['largest_us']:.0f} µs the largest single call")
    if device == "cuda":
        print(f"    GPU kernel time {grads['device_us']:.0f} µs")
    found = [(name, frames) for name, _ in hot if (frames := call_site(prof, name))]
    if found:
        name, frames = found[0]
        print(f"\nwith_stack: where {name}, the first of them called from Python, comes from:")
        for frame in frames:
            print(f"    {frame}")


def claim_accumulate_grad_once_per_parameter(main):
    """#profiler: AccumulateGrad runs once per parameter per step, and the only op below it is a detach."""
    return main.line("    calls ").endswith(": True") and re.fullmatch(r"aten::detach x\d+", main.line("ops below it").split("it", 1)[1].strip()) is not None


def claim_accumulate_grad_no_gpu_work(main):
    """#profiler: On the GPU AccumulateGrad launches no kernel, so it is absent from the GPU table."""
    accumulate = main.between("AccumulateGrad, the node")
    return main.device != "cuda" or (accumulate.number("GPU kernel time") == 0 and main.count("AccumulateGrad") == 1)


def claim_shapes_split(main):
    """#profiler: record_shapes splits each op by input shapes: the same aten::addmm appears in five rows, one per distinct shape: the attention's two projections, the MLP's two layers and the LM head."""
    shapes = [line.strip() for line in main.between("record_shapes: aten::addmm", "Ops above").lines if line.strip()]
    return main.number("record_shapes: aten::addmm in") == 5 == len(set(shapes)) and sum("[600]" in s for s in shapes) == 1


def claim_stack_ends_in_the_loop(main):
    """#profiler: with_stack leads from the op back to a line of this file's training step."""
    if "with_stack:" not in main:
        return main.device == "cuda"
    return "snippets/week09/profiler_drill.py(" in main.between("with_stack:").lines[-1]
