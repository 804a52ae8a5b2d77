"""Theory 02's exercises: a graph without bias, the bias's gradient, and what the loss graph packs."""

import torch
import torch.nn.functional as F

from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory02.graph_diagram import tree_text


def no_bias_graph() -> str:
    """Exercise 1: the graph of F.linear(x, W), drawn as theory 02 draws it."""
    x, W, _ = make_inputs()
    return tree_text(F.linear(x, W).grad_fn, {"x": x, "W": W})


def bias_gradient(batch: int) -> torch.Tensor:
    """Exercise 2: b.grad after linear(x, W, b).sum().backward() for a batch of `batch` rows."""
    _, W, b = make_inputs()
    x = torch.randn(batch, 64)
    F.linear(x, W, b).sum().backward()
    return b.grad


def packed_tensors() -> list[str]:
    """Exercise 3: every tensor the loss graph hands to a saved-tensor hook, and whose storage it is."""
    x, W, b = make_inputs()
    target = torch.randint(0, 600, (x.shape[0],))
    packed = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        logits = F.linear(x, W, b)
        loss = F.cross_entropy(logits, target)
    owners = {"x": x, "W": W, "target": target, "logits": logits}
    seen, rows = {}, []
    for tensor in packed:
        storage = tensor.untyped_storage().data_ptr()
        owner = next((name for name, t in owners.items() if t.untyped_storage().data_ptr() == storage), None)
        if owner is None:
            owner = seen.setdefault(storage, f"new storage {len(seen) + 1}")
        rows.append(f"{str(tuple(tensor.shape)):<10} {str(tensor.dtype):<14} {owner}")
    del loss
    return rows


def main_no_bias():
    print(no_bias_graph())


def main_bias_gradient():
    for batch in (2, 5):
        grad = bias_gradient(batch)
        print(f"batch {batch}: b.grad shape {tuple(grad.shape)}, distinct values {grad.unique().tolist()}")


def main_packed():
    rows = packed_tensors()
    print(f"{len(rows)} tensors packed:")
    for row in rows:
        print(f"    {row}")


def claim_mm_node(main_no_bias):
    """#exercises: without a bias the node is MmBackward0, with x in slot 0 and the weight behind TBackward0 in slot 1."""
    return main_no_bias.lines[:4] == ["MmBackward0", "├── [0] AccumulateGrad(x)", "└── [1] TBackward0",
                                     "    └── [0] AccumulateGrad(W)"]


def claim_bias_grad_is_batch(main_bias_gradient):
    """#exercises: every entry of b.grad equals the batch size: 2.0 for a batch of 2, 5.0 for a batch of 5."""
    return (main_bias_gradient.line("batch 2:").endswith("(600,), distinct values [2.0]")
            and main_bias_gradient.line("batch 5:").endswith("(600,), distinct values [5.0]"))


def claim_packed(main_packed):
    """#exercises: six tensors are packed; x, W's storage and the target are inputs, the logits are not saved, and only the log-probabilities (packed twice) and the 4-byte float32 total weight are new storage."""
    rows = [row.split(None, 2) if row.strip().startswith("()") else row.split(") ", 1)[1].split(None, 1)
            for row in main_packed.lines[1:]]
    owners = [row[-1] for row in rows]
    scalar = main_packed.line("()").split()
    return (main_packed.lines[0] == "6 tensors packed:" and scalar[1:] == ["torch.float32", "new", "storage", "2"]
            and sorted(owners) == ["W", "new storage 1", "new storage 1", "new storage 2", "target", "x"])
