"""Gradients accumulate into .grad; a second backward needs retain_graph=True."""

import textwrap

import torch

from snippets.phase25.theory02.graph_diagram import head_loss


def accumulate() -> list[tuple[str, str]]:
    """What W.grad holds after each backward, and what a backward through a freed graph raises."""
    loss, leaves = head_loss()
    W = leaves["W"]
    steps = [("before any backward", f"W.grad is {W.grad}")]
    loss.backward(retain_graph=True)
    first = W.grad.clone()
    steps.append(("loss.backward(retain_graph=True)", f"W.grad has shape {tuple(W.grad.shape)}"))
    loss.backward()
    steps.append(("loss.backward()", f"W.grad == 2 * first gradient: {torch.equal(W.grad, 2 * first)}"))
    try:
        loss.backward()
    except RuntimeError as error:
        steps.append(("loss.backward() again", f"RuntimeError: {error}"))
    addmm = loss.grad_fn.next_functions[0][0].next_functions[0][0]
    try:
        addmm._saved_mat1
    except RuntimeError as error:
        first_words = str(error).split(" (")[0]
        steps.append((f"{type(addmm).__name__}._saved_mat1", f"RuntimeError: {first_words} (...)"))
    W.grad = None  # what optimizer.zero_grad() does by default (set_to_none=True)
    steps.append(("W.grad = None", f"W.grad is {W.grad}"))
    return steps


def main():
    for call, result in accumulate():
        print(textwrap.fill(result, 100, initial_indent=f"{call:34} -> ", subsequent_indent=" " * 38))


def claim_doubles_then_fails(main):
    """#accumulation: the second backward doubled W.grad; the third fails because the saved tensors were released, and reading a saved attribute afterwards raises the same error."""
    error = "RuntimeError: Trying to backward through the graph a second"
    return (main.line("loss.backward()      ").endswith("W.grad == 2 * first gradient: True")
            and error in main.line("loss.backward() again") and error in main.line("AddmmBackward0._saved_mat1"))
