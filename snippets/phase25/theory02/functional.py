"""torch.func: gradients as a function's return value, with no .grad written and no graph kept."""

import torch
import torch.nn.functional as F
from torch.func import grad

from snippets.phase25.lab00.part_a_baseline import make_inputs


def loss_of(W: torch.Tensor, b: torch.Tensor, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(F.linear(x, W, b), target)


def functional_gradients() -> dict[str, str]:
    """grad(loss_of, argnums=(0, 1)) on plain tensors, against .backward() on leaves."""
    x, W, b = (t.detach() for t in make_inputs())
    target = torch.randint(0, 600, (2,))
    dW, db = grad(loss_of, argnums=(0, 1))(W, b, x, target)
    W_leaf, b_leaf = W.clone().requires_grad_(), b.clone().requires_grad_()
    loss_of(W_leaf, b_leaf, x, target).backward()
    return {
        "dW, db shapes": f"{tuple(dW.shape)}, {tuple(db.shape)}",
        "W.requires_grad, W.grad": f"{W.requires_grad}, {W.grad}",
        "dW.grad_fn": str(dW.grad_fn),
        "max |dW - W_leaf.grad|, |db - b_leaf.grad|":
            f"{(dW - W_leaf.grad).abs().max().item():.1e}, {(db - b_leaf.grad).abs().max().item():.1e}",
    }


def main():
    for what, value in functional_gradients().items():
        print(f"{what:44} {value}")
