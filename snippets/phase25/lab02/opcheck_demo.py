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


def claim_four_tests_pass_on_every_sample(main):
    """#opcheck: `torch.library.opcheck` runs four tests on each sample input, and all of them pass."""
    tests = ["test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic"]
    samples = [line for line in main.lines if line.startswith("nmb::")]
    results = [line.split() for line in main.lines if line.startswith("    ")]
    return (len(results) == 4 * len(samples) and [r[0] for r in results] == tests * len(samples)
            and all(r[1:] == ["SUCCESS"] for r in results))


def claim_samples(main):
    """#opcheck: The samples cover the LM head's shape with and without `requires_grad`, a 3-d input, and the backward op on its own."""
    return [line for line in main.lines if line.startswith("nmb::")] == [
        "nmb::softmax(x 2x600)", "nmb::softmax(x 2x600, requires_grad)", "nmb::softmax(x 3x5x7)",
        "nmb::softmax_backward(y 2x600, dy 2x600)"]
