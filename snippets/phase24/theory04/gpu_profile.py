"""One profiler run on a GPU, reduced to its events in time order."""

import warnings

import torch
from torch.profiler import ProfilerActivity, profile


def cuda_events(fn) -> list:
    """Host and device events of `fn()` (followed by a synchronize), sorted by start time."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*Profiler clears events")  # torch 2.11 warns on every run
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        return sorted(prof.events(), key=lambda e: e.time_range.start)
