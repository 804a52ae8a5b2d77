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


class LogSumExp(torch.autograd.Function):
    """Exercise 3: log Σⱼ exp(yⱼ) over each row, with a backward that autograd can differentiate again."""

    @staticmethod
    def forward(ctx, y):
        out = torch.logsumexp(y, dim=-1)
        ctx.save_for_backward(y, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        y, out = ctx.saved_tensors
        return grad.unsqueeze(-1) * torch.exp(y - out.unsqueeze(-1))  # softmax(y), in ops autograd records


def derivatives(logsumexp, y: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """logsumexp(y), its gradient, and the second derivative along v (a Hessian-vector product)."""
    y = y.detach().requires_grad_()
    out = logsumexp(y)
    (grad,) = torch.autograd.grad(out.sum(), y, create_graph=True)
    (second,) = torch.autograd.grad((grad * v).sum(), y)
    return out.detach(), grad.detach(), second


def double_backward() -> dict[str, object]:
    """Exercise 3: LogSumExp on the head's logits, checked twice by autograd and against torch.logsumexp."""
    x, W, b, _ = head_problem(torch.float64)
    y, v = F.linear(x, W, b).detach(), torch.randn(x.shape[0], VOCAB, dtype=torch.float64)
    ours, torchs = derivatives(LogSumExp.apply, y, v), derivatives(lambda t: torch.logsumexp(t, -1), y, v)
    small = y[:, :8].clone().requires_grad_()  # gradgradcheck builds a Jacobian of the Jacobian: a few columns
    return {"gradcheck": torch.autograd.gradcheck(LogSumExp.apply, (small,)),
            "gradgradcheck": torch.autograd.gradgradcheck(LogSumExp.apply, (small,))} | {
        f"max |ours - torch.logsumexp| of the {name}": (a - b).abs().max().item()
        for name, a, b in zip(("value", "gradient", "second derivative"), ours, torchs)}


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
    for check, result in double_backward().items():
        print(f"{check}: {result}")


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


def claim_twice_differentiable(exercise3):
    """#exercise-3: gradcheck and gradgradcheck pass, and the value, the gradient and the second derivative match torch.logsumexp's to well under 1e-12."""
    return (exercise3.lines[:2] == ["gradcheck: True", "gradgradcheck: True"]
            and all(exercise3.number(f"of the {name}:") < 1e-12 for name in ("value", "gradient", "second derivative")))


def claim_mse_matches(exercise4):
    """#exercise-4: The hand gradients of the mean squared error match `.backward()` to well under 1e-7."""
    return len(exercise4.lines) == 3 and all(exercise4.number(f"for {n}:") < 1e-15 for n in ("dL/dx", "dL/dW", "dL/db"))
