"""Every task of the course that asks for code, with what its check compares."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from workbench.tasks import Task

LAB00 = "phase-25/lab/00-dispatcher-trace.md"
LAB01 = "phase-25/lab/01-autograd-by-hand.md"
GRADIENTS = ("dL/dx", "dL/dW", "dL/db")


def _head(dtype=torch.float64):
    from snippets.phase25.lab01.problem import head_problem

    return head_problem(dtype)


def _part_b():
    x, W, b, target = _head()
    logits = F.linear(x, W, b)
    G = torch.randn(logits.shape, dtype=logits.dtype)
    return [("linear_backward", (G, x, W)),
            ("cross_entropy_grad", (logits, target)), ("sum_of_squares_grad", (logits, target)),
            *((call, (loss, x, W, b, target)) for call in ("hand_gradients", "autograd_gradients")
              for loss in ("cross_entropy", "sum_of_squares"))]


def _lab00_inputs():
    from snippets.phase25.lab00.part_a_baseline import make_inputs

    return make_inputs()


TASKS = (
    Task(LAB00, "part-a", "phase25/lab00/part_a_baseline.py", ("baseline",),
         cases=lambda: [("baseline", ())], calls=("main",),
         look="the node autograd records for the call: type(y.grad_fn).__name__."),
    Task(LAB00, "part-b", "phase25/lab00/part_b_key_sets.py", ("key_set", "key_sets"),
         cases=lambda: [("key_sets", ())], calls=("main",),
         look="torch._C._dispatch_keys(t), and which keys a dtype, a grad mode or a device adds or drops."),
    Task(LAB00, "part-c", "phase25/lab00/dispatch_log.py",
         ("LogDispatch.__torch_dispatch__", "LogFunctions.__torch_function__", "dispatched_ops",
          "function_calls", "pre_dispatch_ops"),
         cases=lambda: [(name, (F.linear, *_lab00_inputs()))
                        for name in ("dispatched_ops", "function_calls", "pre_dispatch_ops")],
         look="the layer each observer sits at: a TorchFunctionMode sees the Python call, a "
              "TorchDispatchMode the ATen ops below autograd, make_fx(pre_dispatch=True) the graph before "
              "decompositions."),
    Task(LAB00, "part-d", "phase25/lab00/part_d_addmm.py", ("comparisons",),
         cases=lambda: [("comparisons", ())], calls=("main",),
         look="which ops run inside the mode: a view made before the mode is entered is not logged."),
    Task(LAB01, "code", "phase25/lab01/hand_gradients.py",
         ("linear_backward", "cross_entropy_grad", "sum_of_squares_grad", "hand_gradients",
          "autograd_gradients"),
         cases=_part_b, atol=1e-7, parts=GRADIENTS,
         look="the shapes first (each gradient has its tensor's shape), then which side of each product "
              "G and its transpose sit on; for G, the softmax minus the one-hot target, over N."),
    Task(LAB01, "float64", "phase25/lab01/compare.py", ("max_errors", "comparison"),
         cases=lambda: [("comparison", ())], calls=("main",), rtol=1e-6,
         look="max |hand - autograd| of each gradient, for each loss in float64 then float32."),
    Task(LAB01, "float32", "phase25/lab01/float32_error.py", ("spacing", "worst_element"),
         cases=lambda: [("spacing", (1.5,)), ("spacing", (0.01,)), ("worst_element", (0,)),
                        ("worst_element", (3,))], calls=("main",), rtol=1e-6,
         look="torch.nextafter(v, inf) - v in float32 for the spacing; the argmax of |hand - autograd| "
              "over the three gradients, and the autograd value at that element."),
    Task(LAB01, "walk-chain", "phase25/lab01/chain.py", ("walk_by_hand",),
         cases=lambda: [("walk_by_hand", ())], calls=("main",), atol=1e-7,
         look="loss.grad_fn, then next_functions[i][0] of each node, called on the gradient the node "
              "before it returned."),
    Task(LAB01, "minigpt", "phase25/lab01/minigpt_head.py", ("head_errors", "sgd_step"),
         cases=lambda: [("head_errors", ()), ("sgd_step", ())], calls=("main",), rtol=1e-6,
         look="the head's real inputs (head_problem()), the cast to each dtype, and W - lr * dW."),
    Task(LAB01, "exercise-4", "phase25/lab01/exercises.py", ("mse_against_backward",),
         cases=lambda: [("mse_against_backward", ())], calls=("exercise4",), atol=1e-15,
         look="G = 2 (y - one_hot) divided by the number of entries the mean runs over (N x 600)."),
)


def labs() -> dict[str, list[Task]]:
    """The tasks grouped by lab (snippet folder), in the pages' order."""
    grouped: dict[str, list[Task]] = {}
    for task in TASKS:
        grouped.setdefault(task.lab, []).append(task)
    return grouped
