"""Lab 01's exercises, on the lab's problem in float64: each answer computed, not stated."""

import torch
import torch.nn.functional as F

from snippets.phase25.lab01.hand_gradients import cross_entropy_grad, linear_backward
from snippets.phase25.lab01.problem import VOCAB, head_problem

NAMES = ("dL/dx", "dL/dW", "dL/db")


def fresh_leaves(*tensors):
    return [t.detach().clone().requires_grad_() for t in tensors]


def row_sums_of_G() -> dict[str, list[float]]:
    """Exercise 1: each row of G = (softmax(y) - one_hot(t)) / N, summed."""
    x, W, b, target = head_problem(torch.float64)
    G = cross_entropy_grad(F.linear(x, W, b), target)
    return {"row sums of G": G.sum(1).tolist(), "N * G[n, t_n] + 1 = softmax(y)[n, t_n]":
            (x.shape[0] * G[torch.arange(len(target)), target] + 1).tolist(),
            "sum of the entries of dL/db = G.sum(0)": [G.sum(0).sum().item()]}


def reduction_ratio() -> dict[str, float]:
    """Exercise 2: gradients with reduction="sum" against the default "mean"."""
    x, W, b, target = head_problem(torch.float64)
    grads = {}
    for reduction in ("mean", "sum"):
        leaves = fresh_leaves(x, W, b)
        F.cross_entropy(F.linear(*leaves), target, reduction=reduction).backward()
        grads[reduction] = [leaf.grad for leaf in leaves]
    return {name: (s - 2 * m).abs().max().item() for name, m, s in zip(NAMES, grads["mean"], grads["sum"])}


def node_after_backward() -> str:
    """Exercise 3: call the loss's grad_fn by hand after .backward() has run."""
    x, W, b, target = head_problem(torch.float64)
    loss = F.cross_entropy(F.linear(*fresh_leaves(x, W, b)), target)
    loss.backward()
    try:
        loss.grad_fn(torch.ones((), dtype=torch.float64))
    except RuntimeError as error:
        return f"RuntimeError: {str(error).split('. ')[0]}."
    return "it ran"


def mse_against_backward() -> dict[str, float]:
    """Exercise 4: a third loss, mean squared error against the one-hot targets, by hand."""
    x, W, b, target = head_problem(torch.float64)
    one_hot = F.one_hot(target, VOCAB).to(torch.float64)
    y = F.linear(x, W, b)
    G = 2 * (y - one_hot) / y.numel()  # L = mean over all N * 600 entries of (y - one_hot)**2
    hand = linear_backward(G, x, W)
    leaves = fresh_leaves(x, W, b)
    F.mse_loss(F.linear(*leaves), one_hot).backward()
    return {name: (h - leaf.grad).abs().max().item() for name, h, leaf in zip(NAMES, hand, leaves)}


def exercise1():
    for label, values in row_sums_of_G().items():
        print(f"{label}: {', '.join(f'{v:.3g}' for v in values)}")


def exercise2():
    for name, gap in reduction_ratio().items():
        print(f"max |{name} (sum) - 2 x {name} (mean)| = {gap}")


def exercise3():
    print(node_after_backward())


def exercise4():
    for name, gap in mse_against_backward().items():
        print(f"mse_loss, max |hand - autograd| for {name}: {gap:.1e}")


def claim_rows_sum_to_zero(exercise1):
    """#exercise-1: Each row of `G` sums to zero up to float64 rounding, a few times 1e-17 to 1e-16."""
    return all(abs(v) < 1e-15 for v in exercise1.numbers("row sums of G:"))


def claim_bias_gradient_sums_to_zero(exercise1):
    """#exercise-1: the entries of dL/db sum to zero too, up to float64 rounding (the last line)."""
    values = exercise1.numbers("G.sum(0):")
    return len(values) == 1 and abs(values[0]) < 1e-15


def claim_target_probability_below_one(exercise1):
    """#exercise-1: The target's entry is the only negative one: `N · G[n, tₙ] + 1` is the probability the head gives the target, well below 1."""
    return all(0 < v < 0.1 for v in exercise1.numbers("softmax(y)[n, t_n]:"))


def claim_sum_is_exactly_twice(exercise2):
    """#exercise-2: With `reduction="sum"` every gradient is exactly twice the mean's: the differences are 0.0."""
    return exercise2.count("= 0.0") == 3 and len(exercise2.lines) == 3


def claim_node_raises(exercise3):
    """#exercise-3: The call raises: the saved tensors were freed when `.backward()` ran."""
    return exercise3.text.startswith("RuntimeError: Trying to backward through the graph a second time")


def claim_mse_matches(exercise4):
    """#exercise-4: The hand gradients of the mean squared error match `.backward()` to well under 1e-7."""
    return len(exercise4.lines) == 3 and all(exercise4.number(f"for {n}:") < 1e-15 for n in ("dL/dx", "dL/dW", "dL/db"))
