"""torch.library.opcheck: schema, autograd registration, fake tensor and AOT dispatch tests."""

import torch

from snippets.phase25.lab02 import ops

DEVICES = ("cpu", "cuda")


def samples(device: str) -> list[tuple[str, object, tuple]]:
    """(label, op, arguments): the LM head's shape with and without grad, a 3-d input, the backward op."""
    x = torch.randn(2, 600, device=device)
    return [
        ("nmb::softmax(x 2x600)", ops.softmax, (x,)),
        ("nmb::softmax(x 2x600, requires_grad)", ops.softmax, (x.clone().requires_grad_(),)),
        ("nmb::softmax(x 3x5x7)", ops.softmax, (torch.randn(3, 5, 7, device=device),)),
        ("nmb::softmax_backward(y 2x600, dy 2x600)", ops.softmax_backward,
         (torch.softmax(x, dim=-1), torch.randn_like(x))),
    ]


def results(device: str) -> dict[str, dict[str, str]]:
    """opcheck's verdict per test, for every sample."""
    return {label: torch.library.opcheck(op, args) for label, op, args in samples(device)}


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    for label, verdicts in results(device).items():
        print(label)
        for test, verdict in verdicts.items():
            print(f"    {test:<28} {verdict}")
