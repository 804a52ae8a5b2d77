"""Solutions of theory 03's exercises, each one run: the launch for four widths, the kernel
without its max shift and with zeros in its padding, two properties of the backward, and what
KEEP_LAST saves."""

import warnings

import torch
import triton
import triton.language as tl

from snippets.phase24.triton_softmax import kernels
from snippets.phase24.triton_softmax.correctness import cases


def launches(n_rows: int = 4096):
    print("columns BLOCK_COLS ROWS  tile warps programs")
    for n_cols in (1, 600, 4096, 32000):
        config = kernels.launch_config(n_cols)
        print(f"{n_cols:>7} {config['BLOCK_COLS']:>10} {config['ROWS']:>4} "
              f"{config['ROWS'] * config['BLOCK_COLS']:>5} {config['num_warps']:>5} "
              f"{triton.cdiv(n_rows, config['ROWS']):>8}")


@triton.jit
def softmax_kernel_variant(x_ptr, y_ptr, n_rows, N_COLS: tl.constexpr,
                           BLOCK_COLS: tl.constexpr, ROWS: tl.constexpr,
                           SHIFT: tl.constexpr, PAD: tl.constexpr):
    """The course's softmax_kernel (float32 only), the max shift optional, PAD in masked lanes."""
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_COLS)
    in_row = cols[None, :] < N_COLS
    offsets = tl.minimum(rows, n_rows - 1)[:, None] * N_COLS + cols[None, :]
    x = tl.load(x_ptr + offsets, mask=in_row, other=PAD)
    if SHIFT:
        x = x - tl.max(x, axis=1)[:, None]
    numerator = tl.exp(x)
    y = numerator / tl.sum(numerator, axis=1)[:, None]
    tl.store(y_ptr + offsets, y, mask=in_row & (rows[:, None] < n_rows))


def variant(x: torch.Tensor, shift: bool = True, pad: float = -float("inf")) -> torch.Tensor:
    """softmax_kernel_variant on a float32 matrix, launched as kernels.softmax launches its own."""
    y = torch.empty_like(x)
    config = kernels.launch_config(x.shape[1])
    softmax_kernel_variant[(triton.cdiv(x.shape[0], config["ROWS"]),)](
        x, y, x.shape[0], N_COLS=x.shape[1], SHIFT=shift, PAD=pad, **config)
    return y


def rounded(t: torch.Tensor) -> list[list[float]]:
    return [[float(f"{v:.4g}") for v in row] for row in t.tolist()]


def without_the_shift():
    huge = cases("cpu", torch.float32)["(2, 3) magnitude 1e4"]
    ordinary = cases("cpu", torch.float32)["(2, 600) LM head"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's, on exp's overflow
        unshifted = variant(huge, shift=False)
    print(f"logits {huge.tolist()}")
    print("  with the shift:", rounded(kernels.softmax(huge)))
    print("  without it:    ", rounded(unshifted))
    gap = (variant(ordinary, shift=False) - kernels.softmax(ordinary)).abs().max().item()
    print(f"(2, 600) ordinary logits: max |without - with| = {gap:.1e}")


def zeros_in_the_padding():
    generator = torch.Generator().manual_seed(0)
    for n_cols in (600, 1024):
        x = torch.randn(2, n_cols, generator=generator)
        sums = [round(s, 4) for s in variant(x, pad=0.0).sum(dim=1).tolist()]
        padded = kernels.launch_config(n_cols)["BLOCK_COLS"] - n_cols
        print(f"{n_cols} columns ({padded} padded lanes), other=0.0: row sums {sums}")


def backward_properties():
    generator = torch.Generator().manual_seed(0)
    x, dy = (torch.randn(4, 600, dtype=torch.float64, generator=generator)
             for _ in range(2))
    y = kernels.softmax(x)
    dx = kernels.softmax_backward(y, dy)
    shifted = kernels.softmax_backward(y, dy + 5.0)
    print(f"largest |row sum of dx|:           {dx.sum(dim=1).abs().max().item():.1e}")
    print(f"max |dx(dy + 5) - dx(dy)|:         {(shifted - dx).abs().max().item():.1e}")
    print(f"max |dx|, for scale:               {dx.abs().max().item():.1e}")


def elements_loaded(n_cols: int, chunk: int, keep_last: bool) -> int:
    """Elements of y and dy the backward loads per row: looped columns twice, a kept chunk once."""
    looped = (n_cols - 1) // chunk * chunk if keep_last else n_cols
    return 2 * (2 * looped + (n_cols - looped))


def run_backward(y: torch.Tensor, dy: torch.Tensor, keep_last: bool) -> torch.Tensor:
    """softmax_backward_kernel launched with backward_config, KEEP_LAST set to `keep_last`."""
    config = dict(kernels.backward_config(y.shape[1]), KEEP_LAST=keep_last)
    dx = torch.empty_like(y)
    kernels.softmax_backward_kernel[(triton.cdiv(y.shape[0], config["ROWS"]),)](
        y, dy, dx, y.shape[0], N_COLS=y.shape[1], UPCAST=False, **config)
    return dx


def what_keep_last_saves(n_cols: int = 32000):
    config = kernels.backward_config(n_cols)
    print(f"backward_config({n_cols}):\n  {config}")
    kept, not_kept = (elements_loaded(n_cols, config["CHUNK"], keep)
                      for keep in (True, False))
    print(f"loads of y and dy per row: {kept} with KEEP_LAST, {not_kept} without "
          f"({1 - kept / not_kept:.1%} fewer)")
    generator = torch.Generator().manual_seed(0)
    y = kernels.softmax(torch.randn(2, n_cols, generator=generator))
    dy = torch.randn(2, n_cols, generator=generator)
    gap = (run_backward(y, dy, True) - run_backward(y, dy, False)).abs().max().item()
    print(f"max |dx with KEEP_LAST - dx without| = {gap:.1e}")


def claim_tiles_and_programs(launches):
    """#exercises: one column gets 2048 rows per program and 2 programs; 600 columns 2 rows of 1024 lanes, 2048 programs; wider rows one row per program, a tile as wide as the row rounded up to a power of two, more warps, up to 16."""
    rows = {int(line.split()[0]): line.split()[1:] for line in launches.lines[1:]}
    wide = [(n, rows[n]) for n in (4096, 32000)]
    return (rows[1] == ["1", "2048", "2048", "2", "2"] and rows[600] == ["1024", "2", "2048", "2", "2048"]
            and all(r[1] == "1" and int(r[0]) == 2 ** math.ceil(math.log2(n)) and 2 < int(r[3]) <= 16 for n, r in wide)
            and rows[32000][3] == "16" and all(int(r[2]) >= 2048 for r in rows.values()))


def claim_nan_without_the_shift(without_the_shift):
    """#exercises: without the shift both rows of huge logits give nan (the -1e4 entry 0); on ordinary logits the two agree to float32 rounding."""
    return (without_the_shift.line("without it:").endswith("[[nan, nan, 0.0], [nan, nan, nan]]")
            and "nan" not in without_the_shift.line("with the shift:")
            and without_the_shift.number("max |without - with| =") < 1e-6)


def claim_padding_with_zero(zeros_in_the_padding):
    """#exercises: with zeros in 424 padded lanes the rows sum to less than 1; at 1024 columns to 1."""
    narrow, wide = zeros_in_the_padding.lines
    sums = [float(s) for s in narrow.split("[")[1].rstrip("]").split(", ")]
    return "(424 padded lanes)" in narrow and all(s < 0.99 for s in sums) and wide.endswith("[1.0, 1.0]")


def claim_dx_rows_sum_to_zero(backward_properties):
    """#exercises: row sums and the change from dy + 5 come out at float64 rounding, far below the size of dx."""
    out = backward_properties
    scale = out.number("max |dx|, for scale:")
    return out.number("row sum of dx|:") < 1e-14 and out.number("dx(dy)|:") < 1e-14 and scale > 1e-3


def claim_keep_last_saves(what_keep_last_saves):
    """#exercises: two chunks of 16384 columns, the first loaded by both passes and the kept one, 15616 real columns, once; 24.4% fewer loads with KEEP_LAST; dx identical."""
    out = what_keep_last_saves
    kept, without = out.numbers("loads of y and dy per row:")[:2]
    return ("'CHUNK': 16384" in out and "'KEEP_LAST': True" in out and "(24.4% fewer)" in out
            and kept == 2 * (2 * 16384 + 15616) and without == 2 * 2 * (16384 + 15616)
            and out.line("dx with KEEP_LAST").endswith("= 0.0e+00"))
