"""Where the float32 cross-entropy error sits: one rounding step of the gradient value it lands on."""

import math

import torch
from torch.testing._comparison import default_tolerances

from snippets.phase25.lab01.compare import NAMES, TOLERANCE
from snippets.phase25.lab01.hand_gradients import autograd_gradients, hand_gradients
from snippets.phase25.lab01.problem import head_problem

SEEDS = range(10)


def spacing(value: float) -> float:
    """The float32 ulp at |value|: the gap to the next representable float32 above it."""
    v = torch.tensor(abs(value), dtype=torch.float32)
    return (torch.nextafter(v, torch.tensor(math.inf)) - v).item()


def close(hand: torch.Tensor, auto: torch.Tensor) -> bool:
    """Whether the pair passes torch.testing.assert_close's float32 tolerances."""
    rtol, atol = default_tolerances(torch.float32)
    return torch.allclose(hand, auto, rtol=rtol, atol=atol)


def worst_element(seed: int) -> dict:
    """The largest |hand - autograd| over dL/dx, dL/dW, dL/db in float32, and the value it sits on."""
    problem = head_problem(torch.float32, seed=seed)
    worst = None
    for name, hand, auto in zip(NAMES, hand_gradients("cross_entropy", *problem),
                                autograd_gradients("cross_entropy", *problem)):
        error = (hand - auto).abs()
        index = tuple(int(i) for i in torch.unravel_index(error.argmax(), error.shape))
        if worst is None or error.max().item() > worst["error"]:
            worst = {"seed": seed, "where": f"{name}{list(index)}", "error": error.max().item(),
                     "value": auto[index].item(), "all_close": close(hand, auto)}
    worst["ulps"] = worst["error"] / spacing(worst["value"])
    return worst


def sweep() -> list[dict]:
    return [worst_element(seed) for seed in SEEDS]


def main():
    rtol, atol = default_tolerances(torch.float32)
    eps = torch.finfo(torch.float32).eps
    print(f"float32: eps = {eps:.3e}; assert_close defaults rtol = {rtol}, atol = {atol}")
    print(f"{'seed':>4}  {'largest error at':<16} {'value there':>12} {'|error|':>10} {'in ulps':>7}  "
          f"{'<= 1e-7':<7}  within rtol/atol")
    for row in sweep():
        within = "yes" if row["error"] <= TOLERANCE else "no"
        print(f"{row['seed']:>4}  {row['where']:<16} {row['value']:>12.6f} {row['error']:>10.3e} "
              f"{row['ulps']:>7.1f}  {within:<7}  {'yes' if row['all_close'] else 'no'}")
