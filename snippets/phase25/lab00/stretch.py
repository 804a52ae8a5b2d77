"""Stretch: float16, no_grad against inference_mode, and what each really changes."""

import torch
import torch.nn.functional as F

from snippets.phase25.lab00.dispatch_log import dispatched_ops
from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.lab00.part_b_key_sets import key_set


def half_input() -> dict[str, str]:
    """A float16 x against float32 W and b: plain call, then under CPU autocast."""
    x, W, b = make_inputs()
    x16 = x.detach().half()
    rows = {"key set of x.half()": key_set(x16)}
    try:
        F.linear(x16, W, b)
        rows["F.linear(x.half(), W, b)"] = "ran"
    except RuntimeError as error:
        rows["F.linear(x.half(), W, b)"] = f"RuntimeError: {error}"
    with torch.autocast("cpu", dtype=torch.bfloat16):
        rows["ops under torch.autocast('cpu', bfloat16)"] = ", ".join(dispatched_ops(F.linear, x16, W, b))
    return rows


def excluded_autograd_keys() -> str:
    """The autograd keys in this thread's local exclude set, or 'none'."""
    excluded = str(torch._C._dispatch_tls_local_exclude_set()).removeprefix("DispatchKeySet(").rstrip(")")
    return ", ".join(k for k in excluded.split(", ") if k.startswith("Autograd")) or "none"


def grad_modes() -> dict[str, str]:
    """Tensor and thread-local key sets in normal mode, no_grad and inference_mode."""
    x, W, b = make_inputs()
    rows = {}
    for label, mode in (("normal", torch.enable_grad), ("torch.no_grad()", torch.no_grad),
                        ("torch.inference_mode()", torch.inference_mode)):
        with mode():
            y = F.linear(x, W, b)
            rows[f"{label}: key set of the output"] = key_set(y)
            rows[f"{label}: autograd keys excluded for this thread"] = excluded_autograd_keys()
            rows[f"{label}: grad mode on, y.requires_grad"] = f"{torch.is_grad_enabled()}, {y.requires_grad}"
    return rows


def main():
    for label, value in {**half_input(), **grad_modes()}.items():
        print(f"{label}:\n    {value}")
