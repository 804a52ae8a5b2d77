"""Theory 01's exercise 3: the SGEMM call for three layouts of the same product, from MKL's log."""

import torch
import torch.nn.functional as F

from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory01.cpu_gemm import MKL_CALL
from snippets.phase25.theory01.native_stdout import capture_fd1

ISOLATE = True
TIMEOUT = 60


def layouts() -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """(x, W) pairs: the LM head's, W stored transposed, and x stored transposed."""
    x, W, _ = (t.detach() for t in make_inputs())
    return {
        "x (2, 64), W (600, 64) as created": (x, W),
        "W = Wt.t(), Wt a contiguous (64, 600)": (x, W.t().contiguous().t()),
        "x = xt.t(), xt a contiguous (64, 2)": (x.t().contiguous().t(), W),
    }


def sgemm_heads() -> dict[str, str]:
    """The first five arguments of the SGEMM MKL logs for linear(x, W, b), per layout."""
    b = make_inputs()[2].detach()
    heads = {}
    for name, (x, W) in layouts().items():
        with torch.backends.mkl.verbose(torch.backends.mkl.VERBOSE_ON):
            text = capture_fd1(F.linear, x, W, b)
        calls = [f"{m['fn']}({','.join(m['args'].split(',')[:5])},...)" for m in MKL_CALL.finditer(text)]
        heads[name] = "; ".join(calls)
    return heads


def main():
    for name, call in sgemm_heads().items():
        print(f"{name:<40} {call}")


def claim_letters(main):
    """#exercises: W stored transposed turns the first letter into N; x stored transposed turns the second into T; m, n, k stay 600, 2, 64."""
    calls = [line.split("SGEMM", 1)[1] for line in main.lines if "SGEMM" in line]
    return calls == ["(T,N,600,2,64,...)", "(N,N,600,2,64,...)", "(T,T,600,2,64,...)"]
