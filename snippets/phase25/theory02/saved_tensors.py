"""Saved tensors: what each node keeps from forward, and how much of it only the graph holds."""

import torch
import torch.nn.functional as F

from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory02.graph_walk import label, walk


def storage_id(t: torch.Tensor) -> int:
    """Where a tensor's storage starts: equal for tensors sharing memory (never printed)."""
    return t.untyped_storage().data_ptr()


def storage_owner(value: torch.Tensor, inputs: dict[str, torch.Tensor]) -> str | None:
    """The name of the input whose storage `value` uses, or None when the graph made it."""
    return next((name for name, t in inputs.items() if storage_id(t) == storage_id(value)), None)


def describe(value, inputs: dict[str, torch.Tensor]) -> str:
    """A saved attribute in words: a tensor's shape, strides and whose storage it is; else its repr."""
    if not isinstance(value, torch.Tensor):
        return repr(value)
    owner = storage_owner(value, inputs)
    if owner is None:
        relation = "a new tensor"
    else:
        relation = f"is {owner} itself" if value is inputs[owner] else f"a view of {owner}'s storage"
    return f"Tensor{tuple(value.shape)} strides {value.stride()}: {relation}"


def addmm_saved() -> list[tuple[str, str]]:
    """Every _saved_ attribute of the AddmmBackward0 node that F.linear(x, W, b) records."""
    x, W, b = make_inputs()
    node = F.linear(x, W, b).grad_fn
    return [(name, describe(getattr(node, name), {"x": x, "W": W, "b": b}))
            for name in dir(node) if name.startswith("_saved_")]


def loss_saved(batch: int) -> list[dict]:
    """Every tensor saved in the graph of cross_entropy(linear(x, W, b), target), `batch` rows."""
    _, W, b = make_inputs()
    x = torch.randn(batch, 64, requires_grad=True)
    target = torch.randint(0, 600, (batch,))
    inputs = {"x": x, "W": W, "b": b, "target": target}
    loss = F.cross_entropy(F.linear(x, W, b), target)
    rows = []
    for node in walk(loss.grad_fn)[0]:
        for name in dir(node):
            value = getattr(node, name) if name.startswith("_saved_") else None
            if isinstance(value, torch.Tensor):
                rows.append({"saved": f"{label(node, inputs)}.{name}", "shape": tuple(value.shape),
                             "bytes": value.untyped_storage().nbytes(), "storage": storage_id(value),
                             "owner": storage_owner(value, inputs)})
    return rows


def graph_only_bytes(rows: list[dict]) -> int:
    """Bytes of the distinct storages that only the graph keeps alive (none of the inputs')."""
    return sum({row["storage"]: row["bytes"] for row in rows if row["owner"] is None}.values())


def main():
    for name, text in addmm_saved():
        print(f"AddmmBackward0.{name:25} {text}")
    print()
    first = {}
    for row in loss_saved(2):
        if row["owner"]:
            whose = f"storage of {row['owner']}"
        elif row["storage"] in first:
            whose = f"same storage as {first[row['storage']]}"
        else:
            whose = "held by the graph only"
        first.setdefault(row["storage"], row["saved"])
        print(f"{row['saved']:42} {str(row['shape']):10} {row['bytes']:>7} bytes  {whose}")
    print()
    for batch in (2, 64, 4096):
        held = graph_only_bytes(loss_saved(batch))
        print(f"batch {batch:>4}: the graph alone keeps {held:>10,} bytes alive")
