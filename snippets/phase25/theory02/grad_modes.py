"""no_grad against inference_mode: grad mode, key sets and this thread's local key sets."""

import torch
import torch.nn.functional as F

from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.lab00.part_b_key_sets import key_set

KEY = torch._C.DispatchKey
MODES = {"normal": torch.enable_grad,
         "torch.no_grad()": torch.no_grad,
         "torch.inference_mode()": torch.inference_mode}


def node_name(t: torch.Tensor) -> str:
    return type(t.grad_fn).__name__ if t.grad_fn else "None"


def mode_effects() -> dict[str, dict[str, str]]:
    """For each mode, what F.linear(x, W, b) produces and which keys this thread skips."""
    x, W, b = make_inputs()
    effects = {}
    for label, mode in MODES.items():
        with mode():
            y = F.linear(x, W, b)
            excluded = torch._C._dispatch_tls_is_dispatch_key_excluded(KEY.AutogradFunctionality)
            included = torch._C._dispatch_tls_is_dispatch_key_included(KEY.ADInplaceOrView)
            effects[label] = {
                "torch.is_grad_enabled()": str(torch.is_grad_enabled()),
                "y.requires_grad, y.grad_fn": f"{y.requires_grad}, {node_name(y)}",
                "key set of y": key_set(y),
                "key set of x (made outside)": key_set(x),
                "thread excludes AutogradFunctionality": str(excluded),
                "thread includes ADInplaceOrView": str(included),
            }
    return effects


def later_use() -> dict[str, str]:
    """A result made under each mode, used afterwards where backward must save it."""
    x, W, b = make_inputs()
    outcomes = {}
    for label in ("torch.no_grad()", "torch.inference_mode()"):
        with MODES[label]():
            h = F.linear(x, W, b)
        try:
            (h * W.sum()).sum().backward()  # the product saves h for W's gradient
            outcomes[label] = f"backward ran; h.is_leaf = {h.is_leaf}, W.grad filled = {W.grad is not None}"
        except RuntimeError as error:
            outcomes[label] = f"RuntimeError: {str(error).split('. ')[0]}."
        W.grad = None
    return outcomes


def main():
    for label, rows in mode_effects().items():
        print(label)
        for what, value in rows.items():
            print(f"    {what:40} {value}")
    print("\nusing the result later with autograd on:")
    for label, outcome in later_use().items():
        print(f"    made under {label:24} {outcome}")


def claim_no_grad_is_a_flag(main):
    """#grad-modes: under no_grad y has no grad_fn, carries the same key set as in normal mode, with AutogradCPU, and the thread excludes no autograd key."""
    normal, no_grad = main.between("normal", "torch.no_grad()"), main.between("torch.no_grad()", "torch.inference_mode()")
    return (no_grad.line("y.requires_grad").endswith("False, None") and no_grad.line("key set of y") == normal.line("key set of y")
            and "AutogradCPU" in no_grad.line("key set of y") and no_grad.line("excludes Autograd").endswith("False"))


def claim_inference_mode_changes_dispatch(main):
    """#grad-modes: inference_mode excludes the autograd functionality and drops ADInplaceOrView; tensors made inside have the key set DispatchKeySet(CPU, AutocastCPU)."""
    inference = main.between("torch.inference_mode()", "using the result later")
    return (inference.line("excludes AutogradFunctionality").endswith("True")
            and inference.line("includes ADInplaceOrView").endswith("False")
            and inference.line("key set of y").endswith("DispatchKeySet(CPU, AutocastCPU)"))


def claim_inference_tensor_refused(main):
    """#grad-modes: a tensor made under no_grad is a leaf and can be saved for backward; an inference tensor cannot, and the engine refuses it."""
    return (main.line("made under torch.no_grad()").endswith("backward ran; h.is_leaf = True, W.grad filled = True")
            and "RuntimeError: Inference tensors cannot be saved for backward" in main.line("made under torch.inference_mode()"))
