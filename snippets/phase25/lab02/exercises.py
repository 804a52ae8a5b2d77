"""Lab 02's exercises on nmb::softmax: a tensor with no data, and gradcheck's launches."""

from collections import Counter

import torch

from snippets.phase25.lab00.dispatch_log import LogDispatch
from snippets.phase25.lab02 import ops


def on_meta() -> dict[str, object]:
    """Exercise 1: nmb::softmax on a meta tensor, which has a shape and no data."""
    y = ops.softmax(torch.empty(2, 600, device="meta"))
    return {"shape": tuple(y.shape), "device": y.device, "dtype": y.dtype, "stride": y.stride()}


class LogZeroGradients(LogDispatch):
    """LogDispatch that also logs 'zero dy' for each backward call whose incoming gradient is all zeros."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if str(func) == "nmb.softmax_backward.default" and not args[1].any():
            self.calls.append("zero dy")
        return super().__torch_dispatch__(func, types, args, kwargs)


def gradcheck_calls(shape=(4, 10), **options) -> dict[str, int]:
    """Exercise 3: how many times gradcheck calls the forward and the backward op, the latter with zero dy."""
    x = torch.randn(shape, dtype=torch.float64, requires_grad=True)
    with LogZeroGradients() as log:
        assert torch.autograd.gradcheck(ops.softmax, (x,), **options)
    counts = Counter(log.calls)
    return {"softmax": counts["nmb.softmax.default"], "softmax_backward": counts["nmb.softmax_backward.default"],
            "zero dy": counts["zero dy"]}


def exercise1():
    for key, value in on_meta().items():
        print(f"{key}: {value}")


def exercise3():
    for label, options in (("full", {}), ("full, check_undefined_grad=False", {"check_undefined_grad": False}),
                           ("fast_mode=True", {"fast_mode": True})):
        calls = gradcheck_calls(**options)
        print(f"gradcheck (4, 10), {label:33} softmax: {calls['softmax']:3}  softmax_backward: "
              f"{calls['softmax_backward']:3} (all-zero dy: {calls['zero dy']})")


def claim_meta_output(exercise1):
    """#exercise-1: The call returns a meta tensor of shape `(2, 600)`, float32, contiguous: what `register_fake` promised, with no kernel run."""
    return (exercise1.line("shape:").endswith("(2, 600)") and exercise1.line("device:").endswith("meta")
            and exercise1.line("dtype:").endswith("torch.float32") and exercise1.line("stride:").endswith("(600, 1)"))


def claim_two_calls_per_element(exercise3):
    """#exercise-3: The full check calls the forward 80 times for the perturbations, two per input element, and the backward 80 times, twice per output element; one or two calls of each remain, and fast mode needs a handful."""
    full, undefined, fast = (exercise3.numbers(label)[:2] for label in ("full ", "check_undefined_grad=False", "fast_mode=True"))
    return all(80 < n <= 82 for n in full + undefined) and all(n <= 4 for n in fast)


def claim_undefined_grad_test_is_one_call(exercise3):
    """#exercise-3: Of the two extra calls of each, `check_undefined_grad=False` removes one, the undefined gradient test's."""
    return exercise3.numbers("full ")[:2] == [82, 82] and exercise3.numbers("check_undefined_grad=False")[:2] == [81, 81]


def claim_extra_backwards_get_zero_dy(exercise3):
    """#exercise-3: Both extra backward calls receive an all-zero `dy`, and `check_undefined_grad=False` leaves one of them."""
    return exercise3.numbers("full ")[2] == 2 and exercise3.numbers("check_undefined_grad=False")[2] == 1
