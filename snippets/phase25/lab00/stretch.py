"""Stretch: float16, no_grad against inference_mode, and what each really changes."""

import torch
import torch.nn.functional as F

from snippets.phase25.lab00.dispatch_log import dispatched_ops
from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.lab00.part_b_key_sets import key_set


def half_input() -> dict[str, str]:
    """All three inputs float16; then a float16 x against float32 W and b: plain call, then under CPU autocast."""
    x, W, b = make_inputs()
    x16, W16, b16 = (t.detach().half() for t in (x, W, b))
    rows = {"key set of x.half()": key_set(x16),
            "ops of F.linear(x.half(), W.half(), b.half())": ", ".join(dispatched_ops(F.linear, x16, W16, b16)),
            "dtype of its output": str(F.linear(x16, W16, b16).dtype)}
    try:
        F.linear(x16, W, b)
        rows["F.linear(x.half(), W, b)"] = "ran"
    except RuntimeError as error:
        rows["F.linear(x.half(), W, b)"] = f"RuntimeError: {error}"
    with torch.autocast("cpu", dtype=torch.bfloat16):
        rows["ops under torch.autocast('cpu', bfloat16)"] = ", ".join(dispatched_ops(F.linear, x16, W, b))
    return rows


AUTOGRAD_KEYS = ("AutogradFunctionality", "AutogradOther", "AutogradNestedTensor")


def excluded_autograd_keys() -> str:
    """The autograd keys in this thread's local exclude set, or 'none'.

    Asked key by key: a printed key set names `AutogradCPU` only when it also holds the CPU backend bit,
    so the `AutogradFunctionality` bit that covers every backend's autograd key does not show in it.
    """
    excluded = torch._C._dispatch_tls_local_exclude_set()
    return ", ".join(k for k in AUTOGRAD_KEYS if excluded.has(getattr(torch._C.DispatchKey, k))) or "none"


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


def claim_half_raises(main):
    """#stretch: float16 adds no key; mixing it with float32 weights raises `mat1 and mat2 must have the same dtype`."""
    return (main.between("key set of x.half()", ":").text.strip() == "DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)"
            and "mat1 and mat2 must have the same dtype" in main)


def claim_all_half_same_ops(main):
    """#stretch: With all three inputs in float16 the trace is the float32 one, `aten.t` then `aten.addmm`, and the output is float16: the CPU kernel switches on the dtype inside itself."""
    return (main.between("ops of F.linear(x.half(), W.half(), b.half())", ":").text.strip()
            == "aten.t.default, aten.addmm.default" and main.between("dtype of its output", ":").text.strip() == "torch.float16")


def claim_autocast_casts_three(main):
    """#stretch: Under `torch.autocast` the three inputs are cast (`aten._to_copy` three times) before `t` and `addmm`."""
    ops = main.between("ops under torch.autocast", ":").text.strip().split(", ")
    return ops == ["aten._to_copy.default"] * 3 + ["aten.t.default", "aten.addmm.default"]


def claim_no_grad_changes_no_keys(main):
    """#stretch: `torch.no_grad()` does not remove `AutogradCPU`: neither the tensors' key sets nor the thread's excluded keys change."""
    def row(label):
        return main.between(label, ":").text.strip()
    return (row("torch.no_grad(): key set") == row("normal: key set") and "AutogradCPU" in row("normal: key set")
            and row("torch.no_grad(): autograd keys") == row("normal: autograd keys") == "none")


def claim_inference_mode_skips_autograd(main):
    """#stretch: `torch.inference_mode()` outputs carry `DispatchKeySet(CPU, AutocastCPU)` and the thread excludes `AutogradFunctionality`."""
    def row(label):
        return main.between(label, ":").text.strip()
    return (row("torch.inference_mode(): key set") == "DispatchKeySet(CPU, AutocastCPU)"
            and "AutogradFunctionality" in row("torch.inference_mode(): autograd keys").split(", "))
