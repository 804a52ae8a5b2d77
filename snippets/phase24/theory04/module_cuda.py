"""What `model.cuda()` does to TinyMLP, counted on a GPU: allocations, copies, the same Parameter objects."""

from collections import Counter

import torch

from snippets.phase24.theory04.gpu_profile import cuda_events
from snippets.phase24.theory04.tiny_mlp import TinyMLP

DEVICES = ("cuda",)
STATS = ("allocation.all.allocated", "segment.all.allocated", "allocated_bytes.all.current",
         "reserved_bytes.all.current")


def move_with_memory_stats() -> dict[str, object]:
    """Move a fresh TinyMLP to the GPU; the caching allocator's counters before and after."""
    torch.manual_seed(0)
    model = TinyMLP()
    params = list(model.parameters())
    torch.cuda.init()
    before = torch.cuda.memory_stats()
    model.cuda()
    torch.cuda.synchronize()
    after = torch.cuda.memory_stats()
    delta = {key: after.get(key, 0) - before.get(key, 0) for key in STATS}
    return {
        "parameter bytes": sum(p.numel() * p.element_size() for p in params),
        **delta,
        "same Parameter objects after .cuda()": all(a is b for a, b in zip(params, model.parameters())),
        "devices now": sorted({str(p.device) for p in model.parameters()}),
    }


def copies_seen_by_profiler() -> list[tuple[str, int]]:
    """(event name, count) of the copies and allocations the profiler sees while a TinyMLP moves."""
    model = TinyMLP()
    watched = ("Memcpy", "cudaMemcpy", "cudaMalloc", "aten::_to_copy", "aten::copy_", "aten::empty_strided")
    counts = Counter(e.name for e in cuda_events(model.cuda) if e.name.startswith(watched))
    return sorted(counts.items())


def main():
    for key, value in move_with_memory_stats().items():
        print(f"{key:38} {value}")
    print("\nprofiler events while a second TinyMLP moves (name: count):")
    for name, count in copies_seen_by_profiler():
        print(f"  {name}: {count}")


def claim_allocations_and_segments(main):
    """#model-cuda: one allocation per parameter (four), carved out of one segment whose reserved bytes exceed the allocated ones; the same Parameter objects afterwards."""
    return (main.number("allocation.all.allocated") == 4 and main.number("segment.all.allocated") == 1
            and main.number("reserved_bytes.all.current") > main.number("allocated_bytes.all.current")
            and main.line("same Parameter objects").endswith("True"))


def claim_second_model_copies(main):
    """#model-cuda: the second model's move shows an aten::empty_strided per parameter and no cudaMalloc; each parameter goes through aten::_to_copy and aten::copy_ to one cudaMemcpyAsync, a pageable host-to-device Memcpy."""
    events = main.between("profiler events")
    return ("cudaMalloc:" not in events and all(events.number(name + ":") == 4 for name in (
        "aten::empty_strided", "aten::_to_copy", "aten::copy_", "cudaMemcpyAsync", "Memcpy HtoD (Pageable -> Device)")))
