"""The kernels against torch.softmax: three dtypes, odd widths, -inf entries, large magnitudes.

On CPU the kernels run in Triton's interpreter; on a GPU, compiled. The reference is
torch.softmax (and its backward) computed in float64.
"""

import torch

from snippets.phase24.triton_softmax import kernels

DEVICES = ("cpu", "cuda")
TOLERANCE = {torch.float64: 1e-12, torch.float32: 1e-6, torch.float16: 2e-3}


def cases(device: str, dtype: torch.dtype) -> dict[str, torch.Tensor]:
    """Named inputs: the LM head's width, odd widths, masked entries, huge logits."""
    generator = torch.Generator().manual_seed(0)

    def randn(*shape, scale=1.0):
        return (scale * torch.randn(*shape, generator=generator)).to(device, dtype)

    causal = randn(7, 7)
    causal.masked_fill_(torch.ones(7, 7, dtype=torch.bool, device=device).triu(1), float("-inf"))
    huge = torch.tensor([[1e4, 1e4 - 8, -1e4], [-3e4, -3e4 + 16, -3e4 + 32]])  # exact in float16 too
    return {
        "(2, 600) LM head": randn(2, 600),
        "(5, 1) one column": randn(5, 1),
        "(3, 37) odd width": randn(3, 37),
        "(4, 5, 1000) 3-d": randn(4, 5, 1000),
        "(7, 7) causal -inf": causal,
        "(2, 3) magnitude 1e4": huge.to(device, dtype),  # exp() alone overflows or underflows
    }


def max_errors(x: torch.Tensor) -> tuple[float, float]:
    """Largest absolute error of the forward and of the backward, against float64 torch."""
    y = kernels.softmax(x)
    dy = torch.randn(x.shape, generator=torch.Generator().manual_seed(1)).to(x.device, x.dtype)
    dx = kernels.softmax_backward(y, dy)
    y_ref = torch.softmax(x.double(), dim=-1)
    dx_ref = torch.ops.aten._softmax_backward_data(dy.double(), y_ref, -1, torch.float64)
    return (y.double() - y_ref).abs().max().item(), (dx.double() - dx_ref).abs().max().item()


def report(device: str) -> list[tuple[str, str, float, float, bool]]:
    """(dtype, case, forward error, backward error, within tolerance) for every case."""
    rows = []
    for dtype, tolerance in TOLERANCE.items():
        for name, x in cases(device, dtype).items():
            forward, backward = max_errors(x)
            rows.append((str(dtype).removeprefix("torch."), name, forward, backward,
                         max(forward, backward) <= tolerance))
    return rows


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    print(f"{'dtype':<8} {'input':<22} {'forward err':>11} {'backward err':>12}  ok")
    for dtype, name, forward, backward, ok in report(device):
        print(f"{dtype:<8} {name:<22} {forward:11.1e} {backward:12.1e}  {ok}")


def claim_every_case_within_tolerance(main):
    """#correctness: every case of every dtype is within its tolerance."""
    rows = [line for line in main.lines[1:] if line.strip()]
    return len(rows) == 18 and all(row.split()[-1] == "True" for row in rows)


def claim_errors_by_dtype(main):
    """#correctness: the largest errors are of the order of 1e-16 in float64, 1e-7 in float32 and 1e-4 in float16."""
    def largest(dtype):
        return max(max(float(n) for n in line.split()[-3:-1]) for line in main.lines if line.startswith(dtype))
    return 1e-17 <= largest("float64") < 1e-15 and 1e-8 <= largest("float32") < 1e-6 and 1e-5 <= largest("float16") < 1e-3


def claim_one_column_is_exact(main):
    """#correctness: the softmax of one number is 1: the one-column case has no error at all."""
    return all(line.split()[-3:-1] == ["0.0e+00", "0.0e+00"] for line in main.lines if "one column" in line)
