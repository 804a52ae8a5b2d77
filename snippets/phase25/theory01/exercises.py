"""Theory 01's exercises: predict the key that wins, and which operators are composite."""

import torch

from snippets.phase25.theory01.dispatch_table import call_key_set, names
from snippets.phase25.theory01.native_functions import entry

C = torch._C
OPERATORS = ("aten::linear", "aten::matmul", "aten::softmax.int", "aten::_softmax", "aten::dropout",
             "aten::layer_norm", "aten::native_layer_norm", "aten::addmm", "aten::mm", "aten::relu")
ALIASES = ("CompositeImplicitAutograd", "CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional")


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


def composite() -> dict[str, tuple[bool, list[str]]]:
    """Exercise 2: whether each operator has a CPU kernel of its own, and the alias keys it registers.

    A backend's own kernel wins over every alias key: a dense CPU call decomposes at the autograd key
    only when the operator has no CPU kernel and a CompositeImplicitAutograd one.
    """
    return {op: (C._dispatch_has_kernel_for_dispatch_key(op, "CPU"),
                 [key for key in ALIASES if C._dispatch_has_kernel_for_dispatch_key(op, key)])
            for op in OPERATORS}


def decomposing(kinds: dict[str, tuple[bool, list[str]]]) -> list[str]:
    """The operators a dense CPU call decomposes at the autograd key."""
    return [op for op, (own, aliases) in kinds.items() if not own and "CompositeImplicitAutograd" in aliases]


def main_keys():
    for name, (keys, winner) in winning_keys().items():
        print(f"t {name:<28} {keys:<48} -> {winner}")


def main_composite():
    kinds = composite()
    print(f"{'operator':<24} {'CPU kernel':<11} alias keys")
    for op, (own, aliases) in kinds.items():
        print(f"{op:<24} {'yes' if own else 'no':<11} {', '.join(aliases) or '-'}")
    print(f"\ndecompose at the autograd key on CPU: {', '.join(decomposing(kinds))}")
    print("\nnative_functions.yaml:", *entry("native_layer_norm"), sep="\n")


def claim_requires_grad_no_key(main_keys):
    """#exercises: requires_grad and the dtype change nothing: every ordinary tensor, sparse included, enters at AutogradCPU; only the inference tensor skips autograd and enters at ADInplaceOrView."""
    winners = {line.split("->")[0].split()[1]: line.split("->")[1].strip() for line in main_keys.lines if line}
    return (winners == {"requires_grad=False": "AutogradCPU", "requires_grad=True": "AutogradCPU",
                        "int64": "AutogradCPU", "sparse": "AutogradCPU", "made": "ADInplaceOrView"}
            and main_keys.line("requires_grad=False").split("->")[0].split(None, 2)[2].strip()
            == main_keys.line("requires_grad=True").split("->")[0].split(None, 2)[2].strip())


def claim_composites(main_composite):
    """#exercises: linear, matmul, softmax, dropout and layer_norm have no CPU kernel, only a CompositeImplicitAutograd one; the other five have a CPU kernel of their own."""
    rows = {line.split()[0]: line.split()[1:] for line in main_composite.between("operator", "decompose").lines if line}
    implicit = ["aten::linear", "aten::matmul", "aten::softmax.int", "aten::dropout", "aten::layer_norm"]
    return (len(rows) == 10 and all(rows[op] == ["no", "CompositeImplicitAutograd"] for op in implicit)
            and all(row[0] == "yes" for op, row in rows.items() if op not in implicit)
            and main_composite.line("decompose at the autograd key").endswith(": " + ", ".join(implicit)))


def claim_native_layer_norm(main_composite):
    """#exercises: native_layer_norm also registers a CompositeExplicitAutograd kernel; native_functions.yaml gives it CPU, CUDA and MPS kernels of its own."""
    yaml = main_composite.between("native_functions.yaml:")
    return (main_composite.line("aten::native_layer_norm").split()[1:] == ["yes", "CompositeExplicitAutograd"]
            and all(f"{key}: layer_norm_{key.lower()}" in yaml for key in ("CPU", "CUDA", "MPS"))
            and "CompositeExplicitAutograd: math_native_layer_norm" in yaml)


def claim_other_aliases(main_composite):
    """#exercises: _softmax, addmm and mm carry a CompositeExplicitAutogradNonFunctional kernel beside their backend ones; relu has backend kernels only."""
    return (all(main_composite.line(f"aten::{op} ").split()[1:] == ["yes", "CompositeExplicitAutogradNonFunctional"]
                for op in ("_softmax", "addmm", "mm"))
            and main_composite.line("aten::relu").split()[1:] == ["yes", "-"])
