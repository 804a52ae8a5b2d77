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


def claim_saved_without_copy(main):
    """#saved-tensors: _saved_mat1 is x itself, and _saved_mat2 is the W.t() view: same storage as W, strides (1, 64)."""
    return (main.line("is x itself").startswith("AddmmBackward0._saved_mat1 ")
            and main.line("a view of W's storage").startswith("AddmmBackward0._saved_mat2 ")
            and "strides (1, 64)" in main.line("a view of W's storage")
            and main.number("_saved_alpha") == main.number("_saved_beta") == 1)


def claim_new_memory(main):
    """#saved-tensors: over the whole loss graph, the graph alone holds the log-probabilities (saved by LogSoftmaxBackward0 and NllLossBackward0 on one storage) and nll_loss's 4-byte total weight; the logits are saved by nobody."""
    rows = main.between("_saved_mat2_sym_strides", "batch").lines
    rows = [row for row in rows if row.strip()]
    graph_only = [row.split()[0] for row in rows if row.endswith("held by the graph only")]
    others = [row for row in rows if not row.endswith("held by the graph only")]
    return (graph_only == ["NllLossBackward0._saved_self", "NllLossBackward0._saved_total_weight"]
            and main.number("_saved_total_weight", 0) == 4
            and main.line("LogSoftmaxBackward0._saved_result").endswith("same storage as NllLossBackward0._saved_self")
            and all(re.search(r"(storage of (target|x|W)|same storage as .*)$", row) for row in others))


def claim_graph_memory_grows_with_batch(main):
    """#saved-tensors: the memory held only by the graph grows with the batch: N x 600 float32 log-probabilities plus the 4-byte total weight."""
    batches = [line for line in main.lines if line.startswith("batch")]
    sizes = [(int(line.split()[1].rstrip(":")), int(line.split("keeps")[1].split()[0].replace(",", ""))) for line in batches]
    return len(sizes) == 3 and all(kept == n * 600 * 4 + 4 for n, kept in sizes)
