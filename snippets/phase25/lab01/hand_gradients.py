"""The gradients of y = x @ W.T + b, derived by hand, for two losses over the 600 logits."""

import torch
import torch.nn.functional as F


def linear_backward(grad_y: torch.Tensor, x: torch.Tensor, W: torch.Tensor):
    """dL/dx, dL/dW, dL/db of y = x @ W.T + b, given G = dL/dy of shape (N, 600)."""
    return grad_y @ W, grad_y.T @ x, grad_y.sum(0)


def cross_entropy_grad(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """dL/dy of L = mean over rows of -log softmax(y)[target]: (softmax(y) - one_hot(target)) / N."""
    one_hot = F.one_hot(target, logits.shape[1]).to(logits.dtype)
    return (torch.softmax(logits, dim=1) - one_hot) / logits.shape[0]


def sum_of_squares_grad(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """dL/dy of L = sum of y**2: 2y (the target plays no part)."""
    return 2 * logits


def cross_entropy(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits, target)


def sum_of_squares(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return (logits**2).sum()


# Each loss with the gradient derived for it: name -> (loss function, dL/dy by hand).
LOSSES = {
    "cross_entropy": (cross_entropy, cross_entropy_grad),
    "sum_of_squares": (sum_of_squares, sum_of_squares_grad),
}


def hand_gradients(loss: str, x: torch.Tensor, W: torch.Tensor, b: torch.Tensor, target: torch.Tensor):
    """dL/dx, dL/dW, dL/db computed from the formulas above, with no autograd graph."""
    with torch.no_grad():
        logits = F.linear(x, W, b)
        return linear_backward(LOSSES[loss][1](logits, target), x, W)


def autograd_gradients(loss: str, x: torch.Tensor, W: torch.Tensor, b: torch.Tensor, target: torch.Tensor):
    """The same three gradients from .backward(), on fresh leaves so nothing accumulates."""
    x, W, b = (t.detach().requires_grad_() for t in (x, W, b))
    LOSSES[loss][0](F.linear(x, W, b), target).backward()
    return x.grad, W.grad, b.grad
