"""Lab 02, part A: the same kernel as an op with no fake implementation, compiled.

Importing this module registers `nmb_exercises::softmax_no_fake` (once per process).
"""

import logging
import re

import torch

from snippets.phase24.triton_softmax import kernels

ISOLATE = True  # torch.compile: process-wide state


@torch.library.custom_op("nmb_exercises::softmax_no_fake", mutates_args=())
def softmax_no_fake(x: torch.Tensor) -> torch.Tensor:
    """The same kernel as nmb::softmax, registered without register_fake."""
    return kernels.softmax(x)


def compile_failure(fn, *args) -> list[str]:
    """['compiled'], or the first line of torch.compile's error and its sentence on the missing fake."""
    logging.disable(logging.ERROR)  # torch logs the failure at length; the page shows its first line
    try:
        torch.compile(fn, fullgraph=True)(*args)
        return ["compiled"]
    except Exception as error:  # noqa: BLE001 - the failure is what the page shows
        message = str(error)
        return [f"{type(error).__name__}: {message.splitlines()[0]}",
                *re.findall(r"There was no fake impl registered for <[^>]*>", message)[:1]]
    finally:
        logging.disable(logging.NOTSET)


def without_fake() -> tuple[float, list[str]]:
    """The op called eagerly (max |difference| to torch.softmax), then compiled after the LM head."""
    head, h = torch.nn.Linear(64, 600), torch.randn(2, 64)
    logits = head(h).detach()
    difference = (softmax_no_fake(logits) - torch.softmax(logits, -1)).abs().max().item()
    return difference, compile_failure(lambda h: softmax_no_fake(head(h)), h)


def main():
    difference, failure = without_fake()
    print(f"eager, max |difference| to torch.softmax: {difference:.1e}")
    print("torch.compile(fullgraph=True):", "\n  ".join(failure))


def claim_eager_runs_tracing_fails(main):
    """#op: The same kernel registered as `nmb_exercises::softmax_no_fake`, with no `register_fake`, runs eagerly and matches `torch.softmax`. `torch.compile(fullgraph=True)` of the LM head followed by it fails while making the fake tensor call: there was no fake impl registered."""
    return (main.number("eager, max |difference| to torch.softmax:") < 1e-6
            and "RuntimeError when making fake tensor call" in main.line("torch.compile(fullgraph=True):")
            and "There was no fake impl registered for <CustomOpDef(nmb_exercises::softmax_no_fake)>" in main)
