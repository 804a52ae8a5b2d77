"""Theory 01's exercises: predict the key that wins, and which operators are composite."""

import torch

from snippets.phase25.theory01.dispatch_table import call_key_set, names

C = torch._C
OPERATORS = ("aten::linear", "aten::matmul", "aten::softmax.int", "aten::_softmax", "aten::dropout",
             "aten::layer_norm", "aten::native_layer_norm", "aten::addmm", "aten::mm", "aten::relu")


def tensors() -> dict[str, torch.Tensor]:
    """Five tensors that differ in what they are, not in their data."""
    plain = torch.randn(3)
    with torch.inference_mode():
        inference = torch.randn(3)
    return {
        "requires_grad=False": plain,
        "requires_grad=True": torch.randn(3, requires_grad=True),
        "int64": plain.long(),
        "sparse": plain.to_sparse(),
        "made under inference_mode()": inference,
    }


def winning_keys() -> dict[str, tuple[str, str]]:
    """Exercise 1: (key set, highest key) of the call t + t, for each tensor t."""
    return {name: (", ".join(names(keys := call_key_set(t, t))), keys.highestPriorityTypeId().name)
            for name, t in tensors().items()}


def composite() -> dict[str, str]:
    """Exercise 2: which alias key, if any, holds each operator's kernel."""
    kinds = {}
    for op in OPERATORS:
        has = [key for key in ("CompositeImplicitAutograd", "CompositeExplicitAutograd")
               if C._dispatch_has_kernel_for_dispatch_key(op, key)]
        kinds[op] = has[0] if has else "per-backend kernels" \
            if C._dispatch_has_kernel_for_dispatch_key(op, "CPU") else "none"
    return kinds


def main_keys():
    for name, (keys, winner) in winning_keys().items():
        print(f"t {name:<28} {keys:<48} -> {winner}")


def main_composite():
    for op, kind in composite().items():
        print(f"{op:<24} {kind}")


def claim_requires_grad_no_key(main_keys):
    """#exercises: requires_grad and the dtype change nothing: every ordinary tensor, sparse included, enters at AutogradCPU; only the inference tensor skips autograd and enters at ADInplaceOrView."""
    winners = {line.split("->")[0].split()[1]: line.split("->")[1].strip() for line in main_keys.lines if line}
    return (winners == {"requires_grad=False": "AutogradCPU", "requires_grad=True": "AutogradCPU",
                        "int64": "AutogradCPU", "sparse": "AutogradCPU", "made": "ADInplaceOrView"}
            and main_keys.line("requires_grad=False").split("->")[0].split(None, 2)[2].strip()
            == main_keys.line("requires_grad=True").split("->")[0].split(None, 2)[2].strip())


def claim_composites(main_composite):
    """#exercises: linear, matmul, softmax, dropout and layer_norm are CompositeImplicitAutograd; _softmax, addmm, mm and relu have kernels per backend; native_layer_norm is CompositeExplicitAutograd."""
    kind = {line.split()[0]: line.split(None, 1)[1] for line in main_composite.lines if line}
    implicit = {op for op, k in kind.items() if k == "CompositeImplicitAutograd"}
    return (implicit == {"aten::linear", "aten::matmul", "aten::softmax.int", "aten::dropout", "aten::layer_norm"}
            and kind["aten::native_layer_norm"] == "CompositeExplicitAutograd"
            and all(kind[op].startswith("per-backend") for op in ("aten::_softmax", "aten::addmm", "aten::mm", "aten::relu")))
