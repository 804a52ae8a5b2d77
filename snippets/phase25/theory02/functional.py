"""torch.func: gradients as a function's return value, with no .grad written and no graph kept."""

import torch
import torch.nn.functional as F
from torch.func import grad

from snippets.phase25.lab00.part_a_baseline import make_inputs


def loss_of(W, b, x, target) -> torch.Tensor:
    """The head's cross-entropy as a plain function of its tensors."""
    return F.cross_entropy(F.linear(x, W, b), target)


def gap(a: torch.Tensor, b: torch.Tensor) -> float:
    return (a - b).abs().max().item()


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
        "max |dW - W_leaf.grad|, |db - b_leaf.grad|": f"{gap(dW, W_leaf.grad):.1e}, {gap(db, b_leaf.grad):.1e}",
    }


def main():
    for what, value in functional_gradients().items():
        print(f"{what:44} {value}")


def claim_no_grad_written(main):
    """#torch-func: the gradients come back as return values; W never required a gradient and no .grad was written."""
    return (main.line("W.requires_grad").endswith("False, None") and main.line("dW.grad_fn").endswith("None")
            and main.line("dW, db shapes").endswith("(600, 64), (600,)"))
