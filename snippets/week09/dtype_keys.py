"""What the dispatcher routes on: the key set of a call on tensors that differ from a float32 CPU tensor in
one property each (dtype, requires_grad, layout, device), and under two autograd modes."""

import torch

from snippets.phase25.theory01.dispatch_table import call_key_set, names


def tensors() -> dict[str, torch.Tensor]:
    """A (2, 3) float32 CPU tensor, and copies of it that each change one property."""
    base = torch.zeros(2, 3)
    return {
        "float32, CPU, strided": base,
        "float64": base.double(),
        "int64": base.long(),
        "bfloat16": base.bfloat16(),
        "requires_grad=True": base.clone().requires_grad_(),
        "sparse COO layout": base.to_sparse(),
        "meta device": base.to("meta"),
    }


def key_sets() -> dict[str, list[str]]:
    """Label -> the call's key set, highest priority first; two autograd modes on the float32 tensor last."""
    found = {label: names(call_key_set(t))[::-1] for label, t in tensors().items()}
    base = tensors()["float32, CPU, strided"]
    with torch.no_grad():
        found["float32 under torch.no_grad()"] = names(call_key_set(base))[::-1]
    with torch.inference_mode():
        found["float32 under torch.inference_mode()"] = names(call_key_set(base))[::-1]
    return found


def main():
    found = key_sets()
    reference = found["float32, CPU, strided"]
    print("key set of a call on each tensor, highest priority first:")
    for label, keys in found.items():
        same = "same as float32" if keys == reference else "differs"
        print(f"  {label:38} {same:16} {', '.join(keys)}")


def claim_dtype_not_a_key(main):
    """#dtype-keys: float64, int64 and bfloat16 tensors give the float32 tensor's key set: dtype is not a key."""
    return all("same as float32" in main.line(f"  {label} ") for label in ("float64", "int64", "bfloat16"))


def claim_grad_state(main):
    """#dtype-keys: requires_grad and torch.no_grad() leave the key set as it is; torch.inference_mode() removes
    the autograd key."""
    return ("same as float32" in main.line("requires_grad=True") and "same as float32" in main.line("torch.no_grad()")
            and "differs" in main.line("inference_mode()") and "Autograd" not in main.line("inference_mode()"))


def claim_layout_and_device_are_keys(main):
    """#dtype-keys: the sparse layout turns CPU into SparseCPU, and the meta device CPU into Meta (and AutogradMeta)."""
    return (main.line("sparse COO").endswith(", SparseCPU") and main.line("meta device").endswith(", Meta")
            and "AutogradMeta" in main.line("meta device"))
