"""One training step run the same way for every pattern: warmed up, metered, compared, timed."""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import time
import warnings
from collections.abc import Callable

import torch
from torch.distributed.tensor import DTensor

from torch.distributed.tensor.debug import CommDebugMode

from snippets.phase25.distributed.comm import CommMeter, torch_counts
from snippets.phase25.distributed.model import loss_fn

Step = Callable[[Callable[[str], None]], None]  # runs forward and backward, calling mark(phase)


def ignore(phase: str) -> None:
    """A mark() that records nothing."""


def forward_backward(model, inputs: torch.Tensor, targets: torch.Tensor) -> Step:
    """The step of every pattern but the pipeline: forward and loss, then backward, each pass marked."""

    def step(mark):
        mark("forward")
        loss = loss_fn(model(inputs), targets)
        mark("backward")
        loss.backward()

    return step


def metered_step(step: Step, optimizer: torch.optim.Optimizer, world_size: int, warm_up: int = 2,
                 comm_debug: bool = True, pipeline_rank: int | None = None) -> dict:
    """Steps that only warm up (lazy set-up; DDP rebuilds its buckets on the second), then one
    step under a CommMeter and, unless `comm_debug` is False, torch's CommDebugMode.
    The warm-up steps leave the weights as they were."""
    for _ in range(warm_up):
        step(ignore)
        optimizer.zero_grad(set_to_none=True)
    with contextlib.ExitStack() as modes:
        # CommDebugMode's module tracker hooks every module's backward, and torch warns that the hook
        # fires though the token ids need no gradient: true, and harmless here
        modes.enter_context(warnings.catch_warnings())
        warnings.filterwarnings("ignore", "Full backward hook is firing")
        debug = modes.enter_context(CommDebugMode()) if comm_debug else None
        meter = modes.enter_context(CommMeter(world_size, pipeline_rank))
        step(meter.mark)
        meter.mark("optimizer")
        optimizer.step()
    return {**meter.summary(), "torch_counts": torch_counts(debug) if debug else None}


def step_times_ms(step: Step, optimizer: torch.optim.Optimizer, device: torch.device, steps: int) -> list[float]:
    """Wall time of each of `steps` training steps after one warm-up (synchronised on a GPU); [] for none."""
    times = []
    for _ in range(steps + 1 if steps else 0):
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        start = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        step(ignore)
        optimizer.step()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        times.append((time.perf_counter() - start) * 1e3)
    return times[1:]


def digest(tensors) -> str:
    """A short hash of the exact bytes of some tensors: equal digests, bitwise-equal tensors."""
    flat = torch.cat([t.detach().flatten() for t in tensors]).cpu().clone()
    return hashlib.sha256(ctypes.string_at(flat.data_ptr(), flat.nbytes)).hexdigest()[:16]


def full(tensor: torch.Tensor) -> torch.Tensor:
    """The whole tensor: a DTensor is gathered from its shards, a plain tensor is itself."""
    return tensor.full_tensor() if isinstance(tensor, DTensor) else tensor


def grad_error(named_parameters, reference: dict[str, torch.Tensor]) -> float:
    """Largest |gradient - single-process gradient| over the parameters given."""
    return max((full(p.grad).cpu() - reference[name].cpu()).abs().max().item() for name, p in named_parameters)
