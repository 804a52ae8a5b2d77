"""Lab 02, exercise 2: the same kernel as an op whose fake implementation gets the strides wrong.

Importing this module registers `nmb_exercises::softmax_wrong_strides` (once per process).
"""

import re

import torch

from snippets.phase24.triton_softmax import kernels
from snippets.phase25.lab02.inlined import attempt


@torch.library.custom_op("nmb_exercises::softmax_wrong_strides", mutates_args=())
def softmax_wrong_strides(x: torch.Tensor) -> torch.Tensor:
    """The same kernel as nmb::softmax: only the fake implementation below differs."""
    return kernels.softmax(x)


@softmax_wrong_strides.register_fake
def fake_wrong_strides(x):
    return x.new_empty(x.shape[::-1]).transpose(0, -1)  # the right shape, column-major strides


def wrong_strides() -> dict[str, object]:
    """The op called, then opchecked: the failing test and the mismatch it found."""
    x = torch.randn(2, 600)
    verdicts, error = attempt(lambda: torch.library.opcheck(softmax_wrong_strides, (x,)))
    if error:
        error = ": ".join(re.findall(r"test_\w+ failed|Stride mismatch! Strides are \(.*?\) and \(.*?\)", error))
    return {"max |difference| to torch.softmax": (softmax_wrong_strides(x) - torch.softmax(x, -1)).abs().max().item(),
            "opcheck": error or verdicts}


def main():
    for key, value in wrong_strides().items():
        print(f"{key}: {value}")


def claim_wrong_fake_runs_but_fails_opcheck(main):
    """#exercise-2: The op computes the right values, and `opcheck` fails it in its fake tensor test, on the strides."""
    return (main.number("max |difference| to torch.softmax:") < 1e-6
            and "test_faketensor failed" in main.line("opcheck:") and "Stride mismatch" in main.line("opcheck:"))
