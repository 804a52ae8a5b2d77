"""Lab 02, exercise 4: the Triton softmax called directly, without the custom op."""

import logging
import re

import torch

from snippets.phase24.triton_softmax import kernels

ISOLATE = True  # torch.compile: process-wide state


def compile_failure(fn, *args) -> str:
    """'compiled', or the exception's type and the line of kernels.py where tracing stopped."""
    logging.disable(logging.ERROR)  # torch logs the failure at length; the page shows where it stopped
    try:
        torch.compile(fn, fullgraph=True)(*args)
        return "compiled"
    except Exception as error:  # noqa: BLE001 - the failure is what the page shows
        where = re.findall(r'File "[^"]*kernels\.py", line \d+, in (\w+)\n\s+(.+)', str(error))
        return f"{type(error).__name__}, tracing kernels.{where[-1][0]}: {where[-1][1].strip()}" if where else type(error).__name__
    finally:
        logging.disable(logging.NOTSET)


def direct_launch() -> dict[str, object]:
    """Autograd and torch.compile(fullgraph=True) around the kernel's plain wrapper."""
    head, h = torch.nn.Linear(64, 600), torch.randn(2, 64)
    y = kernels.softmax(head(h))
    return {"y.requires_grad": y.requires_grad, "y.grad_fn": y.grad_fn,
            "torch.compile(fullgraph=True)": compile_failure(lambda h: kernels.softmax(head(h)), h)}


def main():
    for key, value in direct_launch().items():
        print(f"{key}: {value}")


def claim_no_graph(main):
    """#exercise-4: The output has no `grad_fn`: autograd recorded nothing, so `.backward()` cannot reach the head's weights."""
    return main.line("y.requires_grad:").endswith("False") and main.line("y.grad_fn:").endswith("None")


def claim_compile_stops_at_the_launch(main):
    """#exercise-4: In the interpreter, `torch.compile(fullgraph=True)` stops at the kernel launch."""
    return main.device != "cpu" or "tracing kernels.softmax: wrap(softmax_kernel)[" in main.line("torch.compile")
