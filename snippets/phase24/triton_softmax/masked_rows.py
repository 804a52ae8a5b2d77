"""A row that is -inf everywhere: the kernel's softmax is nan there, as torch.softmax's is (run in the interpreter)."""

import warnings

import torch

from snippets.phase24.triton_softmax import kernels


def rows() -> torch.Tensor:
    """A row with one -inf entry, and a row that is -inf everywhere."""
    inf = float("inf")
    return torch.tensor([[0.0, -inf, 1.0], [-inf, -inf, -inf]])


def softmaxes(x: torch.Tensor) -> dict[str, torch.Tensor]:
    """The course's kernel and torch.softmax on the same rows."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the interpreter computes -inf - (-inf) with NumPy
        ours = kernels.softmax(x)
    return {"kernels.softmax": ours, "torch.softmax": torch.softmax(x, dim=-1)}


def main():
    x = rows()
    print(f"{'x:':<17}{x.tolist()}")
    for name, y in softmaxes(x).items():
        print(f"{name + ':':<17}{[[round(value, 6) for value in row] for row in y.tolist()]}")


def claim_all_minus_inf_gives_nan(main):
    """#correctness: the row that is -inf everywhere gives nan, as torch.softmax does; on the other row, whose -inf entry comes out 0, the two agree too."""
    ours, theirs = (main.line(f"{name}:").split(":", 1)[1].strip() for name in ("kernels.softmax", "torch.softmax"))
    return ours == theirs and ours.endswith("[nan, nan, nan]]") and ", 0.0, " in ours
