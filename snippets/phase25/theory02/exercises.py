"""Theory 02's exercises: a node reached by two edges, the bias's gradient, and what the loss graph packs."""

import torch
import torch.nn.functional as F

from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory02.graph_diagram import tree_text


def squared_graph() -> tuple[str, int, bool]:
    """Exercise 1: the graph of (h * h).sum() for h = F.linear(x, W, b), drawn as theory 02 draws it; how many
    times h's node runs in backward, and whether what it received is the sum of both edges' gradients, 2h."""
    x, W, b = make_inputs()
    h = F.linear(x, W, b)
    loss = (h * h).sum()
    received = []
    h.grad_fn.register_prehook(lambda grad_outputs: received.append(grad_outputs[0]))
    tree = tree_text(loss.grad_fn, {"x": x, "W": W, "b": b})
    loss.backward()
    return tree, len(received), torch.allclose(received[0], 2 * h.detach())


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


def main_squared():
    tree, runs, summed = squared_graph()
    print(tree)
    print(f"times AddmmBackward0 ran in backward: {runs}")
    print(f"the gradient it received equals 2 * h (both edges' gradients, summed): {summed}")


def main_bias_gradient():
    for batch in (2, 5):
        grad = bias_gradient(batch)
        print(f"batch {batch}: b.grad shape {tuple(grad.shape)}, distinct values {grad.unique().tolist()}")


def main_packed():
    rows = packed_tensors()
    print(f"{len(rows)} tensors packed:")
    for row in rows:
        print(f"    {row}")


def claim_one_node_two_edges(main_squared):
    """#exercises: MulBackward0 points at AddmmBackward0 from both of its slots, which the tree draws once; AddmmBackward0 runs once in backward, with one gradient equal to 2 * h."""
    mul = [line for line in main_squared.lines if "] AddmmBackward0" in line]
    return (main_squared.lines[:2] == ["SumBackward0", "└── [0] MulBackward0"] and len(mul) == 2
            and mul[0].endswith("[0] AddmmBackward0") and mul[1].endswith("[1] AddmmBackward0  (drawn above)")
            and "times AddmmBackward0 ran in backward: 1" in main_squared.lines
            and main_squared.lines[-1].endswith("summed): True"))


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
