"""The CUDA variants of parts B, C and E: recorded on a GPU."""

import warnings

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity

from snippets.phase25.lab00.dispatch_log import dispatched_ops
from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.lab00.part_b_key_sets import key_set
from snippets.phase25.lab00.part_e_profiler import profile_linear

DEVICES = ("cuda",)


def gpu_kernels(prof) -> list[tuple[str, int]]:
    """(kernel name, launches) of the device-side events, sorted by name."""
    rows = {}
    for event in prof.key_averages():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            rows[event.key] = rows.get(event.key, 0) + event.count
    return sorted(rows.items())


def main():
    x, W, b = make_inputs(device="cuda")
    print("key set of x on CUDA:        ", key_set(x))
    print("key set of x.half() on CUDA: ", key_set(x.detach().half()))
    print("TorchDispatchMode on CUDA:   ", ", ".join(dispatched_ops(F.linear, x, W, b)))
    with warnings.catch_warnings():  # torch 2.11 warns once per process that cycles clear events
        warnings.filterwarnings("ignore", message=".*Profiler clears events.*")
        profile_linear((ProfilerActivity.CPU,), device="cuda")  # warm-up: cuBLAS handles, lazy loading
        prof = profile_linear((ProfilerActivity.CPU, ProfilerActivity.CUDA), device="cuda")
    print("\nGPU kernels launched by forward + backward (name: launches):")
    for name, count in gpu_kernels(prof):
        print(f"  {name[:100]}: {count}")
    print("\nThe profiler's table (times from this one recorded run):")
    print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=12, max_name_column_width=60))
