"""Part A: the baseline call, and the grad_fn it leaves behind."""

import torch


def make_inputs(seed: int = 42):
    """x (2, 64), W (600, 64), b (600,), all requiring grad: the LM head's shapes."""
    torch.manual_seed(seed)
    x = torch.randn(2, 64, requires_grad=True)
    W = torch.randn(600, 64, requires_grad=True)
    b = torch.randn(600, requires_grad=True)
    return x, W, b


def main():
    x, W, b = make_inputs()
    y = torch.nn.functional.linear(x, W, b)
    print(y.shape, type(y.grad_fn).__name__)
