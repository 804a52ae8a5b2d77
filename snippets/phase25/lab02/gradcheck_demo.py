"""gradcheck on nmb::softmax in float64: the full check on a small input, fast_mode on the LM head's shape."""

import torch

from snippets.phase25.lab02 import ops

DEVICES = ("cpu", "cuda")


def check(shape: tuple[int, ...], fast_mode: bool, device: str) -> bool:
    """torch.autograd.gradcheck of nmb::softmax on a float64 input of `shape`."""
    x = torch.randn(shape, dtype=torch.float64, device=device, requires_grad=True)
    return torch.autograd.gradcheck(ops.softmax, (x,), fast_mode=fast_mode)


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    for shape, fast_mode in (((4, 10), False), ((2, 600), True)):
        print(f"gradcheck {shape} float64 fast_mode={fast_mode}: {check(shape, fast_mode, device)}")


def claim_both_checks_pass(main):
    """#gradcheck: The page runs the full check on a `(4, 10)` input, and fast mode on the LM head's `(2, 600)`: both pass."""
    return (main.line("(4, 10) float64 fast_mode=False").endswith(": True")
            and main.line("(2, 600) float64 fast_mode=True").endswith(": True"))
