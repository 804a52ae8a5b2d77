"""no_grad against inference_mode: grad mode, key sets and this thread's local key sets."""

import torch
import torch.nn.functional as F

from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.lab00.part_b_key_sets import key_set
from snippets.phase25.theory01.dispatch_table import call_key_set

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


def version_after_add(t: torch.Tensor) -> str:
    """t._version before and after t.add_(1), or the error an inference tensor raises."""
    try:
        before = t._version
        t.add_(1)
        return f"{before} -> {t._version}"
    except RuntimeError as error:
        return f"RuntimeError: {error}"


def inside_inference_mode() -> dict[str, dict[str, str]]:
    """Under inference_mode, calls on a normal tensor made outside and on an inference tensor made inside."""
    normal = torch.randn(3)
    effects = {}
    with torch.inference_mode():
        inference = torch.randn(3)
        for label, t in (("a normal tensor, made outside", normal), ("an inference tensor, made inside", inference)):
            effects[label] = {
                "torch.is_inference(t)": str(torch.is_inference(t)),
                "key set of a call on t": str(call_key_set(t)),
                "t._version before -> after t.add_(1)": version_after_add(t),
                "t.view(3)._base is t": str(t.view(3)._base is t),
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
    print("\ninside torch.inference_mode():")
    for label, rows in inside_inference_mode().items():
        print(f"  t = {label}")
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


def claim_inference_tensor_skips_both(main):
    """#grad-modes: a call on an inference tensor has neither an autograd key nor ADInplaceOrView in its key set; the tensor has no version counter (reading _version raises) and a view of it does not record its base."""
    inside = main.between("t = an inference tensor", "using the result later")
    return (inside.line("torch.is_inference(t)").endswith("True")
            and inside.line("key set of a call on t").endswith("DispatchKeySet(CPU, BackendSelect)")
            and "RuntimeError: Inference tensors do not track version counter" in inside.line("t._version")
            and inside.line("t.view(3)._base is t").endswith("False"))


def claim_normal_tensor_keeps_inplace_or_view(main):
    """#grad-modes: a call on a normal tensor made outside still carries ADInplaceOrView and enters there: add_ bumps its version counter and a view of it keeps its base."""
    outside = main.between("t = a normal tensor", "t = an inference tensor")
    return (outside.line("torch.is_inference(t)").endswith("False")
            and outside.line("key set of a call on t").endswith("DispatchKeySet(CPU, BackendSelect, ADInplaceOrView)")
            and outside.line("t._version").endswith("0 -> 1") and outside.line("t.view(3)._base is t").endswith("True"))
