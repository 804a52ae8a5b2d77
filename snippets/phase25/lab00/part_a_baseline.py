"""Part A: the baseline call, and the backward node it leaves behind."""

import torch

SEED = 42


def make_inputs(seed: int = SEED, device: str = "cpu", dtype=torch.float32):
    """x (2, 64), W (600, 64), b (600,): the grammar MiniGPT's LM head, all requiring grad."""
    torch.manual_seed(seed)
    x = torch.randn(2, 64, dtype=dtype).to(device).requires_grad_()
    W = torch.randn(600, 64, dtype=dtype).to(device).requires_grad_()
    b = torch.randn(600, dtype=dtype).to(device).requires_grad_()
    return x, W, b


def baseline():
    """The output's shape and the class of its grad_fn."""
    x, W, b = make_inputs()
    y = torch.nn.functional.linear(x, W, b)
    return y.shape, type(y.grad_fn).__name__


def main():
    shape, node = baseline()
    print("y.shape:        ", shape)
    print("type(y.grad_fn):", node)


def claim_node_is_addmm(main):
    """#part-a: You called `linear`, yet the node autograd recorded is `AddmmBackward0`."""
    return main.line("grad_fn").split()[-1] == "AddmmBackward0"
