"""The full grammar MiniGPT compiled: eager against compiled, and the kernels Inductor generated for it."""

import re

import torch
import torch._inductor.config as inductor_config
from torch._inductor.utils import run_and_get_code
from torch.testing._comparison import default_tolerances

from snippets.minigpt.evaluate import HELDOUT_SEED
from snippets.minigpt.torch_model import load_pretrained, sample_batch
from snippets.phase25.theory03.inductor_code import PINNED_CPU, call_function, kernels

ROWS, SEQ_LEN = 4, 64
# Lines of the attention kernel worth reading, found by a piece of their text (first occurrence).
ATTENTION_LINES = (
    ("(-1L)*x", "the causal mask from indices: key position minus query position, no (64, 64) mask tensor"),
    ("<= tmp", "keep where key <= query (tril)"),
    ("0.25", "the scale D**-0.5 = 16**-0.5, folded in as a constant"),
    ("blendv", "masked_fill: -inf where the mask is off"),
    ("maximum(tmp_acc0_vec", "the row max"),
    (".exp()", "exp(x - max)"),
    ("store(in_out_ptr0", "written in place over the scores from the bmm"),
    ("tmp0 / tmp2", "divided by the row sum"),
)


def compile_minigpt(device: str = "cpu") -> dict:
    """Compile the shipped model for (4, 64) held-out token ids (on CPU with the pinned ISA); compare
    logits and probabilities with eager."""
    model = load_pretrained().to(device)
    ids = sample_batch(ROWS, SEQ_LEN, HELDOUT_SEED).to(device)
    torch._dynamo.reset()
    with inductor_config.patch(PINNED_CPU if device == "cpu" else {}), torch.no_grad():
        eager = model(ids)
        compiled, (code,) = run_and_get_code(torch.compile(model), ids)
    largest = eager.abs().max()
    return {"logits_diff": (eager - compiled).abs().max().item(),
            "probs_diff": (eager.softmax(-1) - compiled.softmax(-1)).abs().max().item(),
            "assert_close": assert_close_verdict(compiled, eager),
            "largest_logit": largest.item(),
            "ulp_at_largest": (torch.nextafter(largest, largest + 1) - largest).item(), "code": code}


def assert_close_verdict(actual: torch.Tensor, expected: torch.Tensor) -> dict:
    """torch.testing.assert_close's verdict (its first line when it fails), and what decides it: the element
    whose |actual - expected| uses the largest share of its own tolerance, atol + rtol * |expected|."""
    rtol, atol = default_tolerances(expected)
    share = (actual - expected).abs() / (atol + rtol * expected.abs())
    worst = share.argmax()
    try:
        torch.testing.assert_close(actual, expected)
        verdict = "passes"
    except AssertionError as error:
        verdict = str(error).splitlines()[0]
    return {"verdict": verdict, "rtol": rtol, "atol": atol, "share": share.max().item(),
            "at": expected.flatten()[worst].item()}


def describe_assert_close(result: dict) -> str:
    """Two lines: the verdict, and its worst element's share of the tolerance there."""
    return (f"torch.testing.assert_close(compiled, eager) on the logits: {result['verdict']}\n"
            f"  worst element: {result['share']:.0%} of its tolerance atol + rtol * |eager| "
            f"= {result['atol']:g} + {result['rtol']:g} * |{result['at']:.3f}|")


def kernel_launches(code: str) -> list[tuple[str, int]]:
    """(kernel, launches per forward) for every generated kernel, in definition order."""
    call = call_function(code)
    return [(name, len(re.findall(rf"\b{name}\b(?:\.run)?\(", call))) for name in kernels(code)]


def attention_softmax(code: str) -> tuple[str, str]:
    """(name, source) of the kernel that fuses the attention softmax: the first whose name mentions softmax
    and the mask (masked_fill or tril), else the first that mentions softmax."""
    softmax = [(n, s) for n, s in kernels(code).items() if "softmax" in n]
    masked = [(n, s) for n, s in softmax if "masked_fill" in n or "tril" in n]
    if not softmax:
        raise RuntimeError(f"no softmax kernel among {list(kernels(code))}")
    return (masked or softmax)[0]


def attention_lines(source: str) -> list[tuple[int, str, str]]:
    """(line number, line, what it does) for the ATTENTION_LINES present in the CPU kernel."""
    lines = source.splitlines()
    found = []
    for text, meaning in ATTENTION_LINES:
        number = next((i for i, line in enumerate(lines, 1) if text in line), None)
        if number is not None:
            found.append((number, lines[number - 1].strip(), meaning))
    return found
