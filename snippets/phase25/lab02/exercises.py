"""Lab 02's exercises on nmb::softmax: fake tensors, a wrong fake implementation, gradcheck's launches.

Importing this module registers one more op, `nmb_exercises::softmax_wrong_strides` (once per process).
"""

import re
from collections import Counter

import torch

from snippets.phase24.triton_softmax import kernels
from snippets.phase25.lab00.dispatch_log import LogDispatch
from snippets.phase25.lab02 import ops
from snippets.phase25.lab02.inlined import attempt


def on_meta() -> dict[str, object]:
    """Exercise 1: nmb::softmax on a meta tensor, which has a shape and no data."""
    y = ops.softmax(torch.empty(2, 600, device="meta"))
    return {"shape": tuple(y.shape), "device": y.device, "dtype": y.dtype, "stride": y.stride()}


@torch.library.custom_op("nmb_exercises::softmax_wrong_strides", mutates_args=())
def softmax_wrong_strides(x: torch.Tensor) -> torch.Tensor:
    """The same kernel as nmb::softmax: only the fake implementation below differs."""
    return kernels.softmax(x)


@softmax_wrong_strides.register_fake
def _(x):
    return x.new_empty(x.shape[::-1]).transpose(0, -1)  # the right shape, column-major strides


def wrong_strides() -> dict[str, object]:
    """Exercise 2: the op with a fake that gets the strides wrong, called, then opchecked."""
    x = torch.randn(2, 600)
    verdicts, error = attempt(lambda: torch.library.opcheck(softmax_wrong_strides, (x,)))
    if error:  # keep the failing test and the mismatch it found
        error = ": ".join(re.findall(r"test_\w+ failed|Stride mismatch! Strides are \(.*?\) and \(.*?\)", error))
    return {"max |difference| to torch.softmax": (softmax_wrong_strides(x) - torch.softmax(x, -1)).abs().max().item(),
            "opcheck": error or verdicts}


def gradcheck_calls(shape=(4, 10), **options) -> dict[str, int]:
    """Exercise 3: how many times gradcheck calls the forward and the backward op."""
    x = torch.randn(shape, dtype=torch.float64, requires_grad=True)
    with LogDispatch() as log:
        assert torch.autograd.gradcheck(ops.softmax, (x,), **options)
    counts = Counter(log.calls)
    return {op: counts[f"nmb.{op}.default"] for op in ("softmax", "softmax_backward")}


def exercise1():
    for key, value in on_meta().items():
        print(f"{key}: {value}")


def exercise2():
    for key, value in wrong_strides().items():
        print(f"{key}: {value}")


def exercise3():
    for label, options in (("full", {}), ("full, check_undefined_grad=False", {"check_undefined_grad": False}),
                           ("fast_mode=True", {"fast_mode": True})):
        calls = gradcheck_calls(**options)
        print(f"gradcheck (4, 10), {label:33} softmax: {calls['softmax']:3}  softmax_backward: "
              f"{calls['softmax_backward']:3}")


def claim_meta_output(exercise1):
    """#exercise-1: The call returns a meta tensor of shape `(2, 600)`, float32, contiguous: what `register_fake` promised, with no kernel run."""
    return (exercise1.line("shape:").endswith("(2, 600)") and exercise1.line("device:").endswith("meta")
            and exercise1.line("dtype:").endswith("torch.float32") and exercise1.line("stride:").endswith("(600, 1)"))


def claim_wrong_fake_runs_but_fails_opcheck(exercise2):
    """#exercise-2: The op computes the right values, and `opcheck` fails it in its fake tensor test, on the strides."""
    return (exercise2.number("max |difference| to torch.softmax:") < 1e-6
            and "test_faketensor failed" in exercise2.line("opcheck:") and "Stride mismatch" in exercise2.line("opcheck:"))


def claim_two_calls_per_element(exercise3):
    """#exercise-3: The full check calls the forward 80 times for the perturbations, two per input element, and the backward 80 times, twice per output element; one or two calls of each remain, and fast mode needs a handful."""
    def counts(label):
        return exercise3.numbers(label)[-2:]
    full, fast = counts("full "), counts("fast_mode=True")
    undefined = counts("check_undefined_grad=False")
    return (all(80 < n <= 82 for n in full + undefined) and full[0] - undefined[0] == 1
            and all(n <= 4 for n in fast))
