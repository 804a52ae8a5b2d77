"""Solutions of the primer's exercises, each one run: a grid to predict, a missing mask, a grid too small
for its tensor, and the lanes a narrow row leaves idle (the BLOCK the compiler cannot use is in refusals.py)."""

import torch
import triton
import triton.language as tl

from snippets.phase24.triton_primer.coverage import table
from snippets.phase24.triton_primer.row_softmax import row_softmax_kernel
from snippets.phase24.triton_primer.vector_add import grid
from snippets.phase24.triton_softmax.kernels import launch_config


def grid_for_5000():
    print(table(5000, 1024))


@triton.jit
def add_kernel_without_mask(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets) + tl.load(y_ptr + offsets))


def without_mask(n: int = 1000, block: int = 256) -> torch.Tensor:
    """The unmasked add on tensors that are the first n elements of larger buffers: the buffer behind `out`."""
    x, y = torch.ones(n + block)[:n], torch.ones(n + block)[:n]
    behind = torch.full((n + block,), -1.0)
    add_kernel_without_mask[grid(n, block)](x, y, behind[:n], BLOCK=block)
    return behind


def missing_mask():
    behind = without_mask()
    written = (behind[1000:] != -1).sum().item()
    print(f"out[:1000] all 2.0: {bool((behind[:1000] == 2).all())}")
    print(f"elements after out's end overwritten: {written} of the {behind.numel() - 1000} that follow it")


def grid_too_small():
    x = torch.randn(4, 8)
    y = torch.full_like(x, float("nan"))
    row_softmax_kernel[(2,)](x, y, 8, BLOCK=8)
    print(f"grid = (2,) for 4 rows; row sums: {y.sum(dim=1).tolist()}")


def idle_lanes(n_cols: int = 600):
    block = triton.next_power_of_2(n_cols)
    print(f"{n_cols} columns in BLOCK = {block}: {block - n_cols} masked lanes per program "
          f"({(block - n_cols) / block:.1%})")
    print(f"theory 03's launch_config({n_cols}) = {launch_config(n_cols)}")


def claim_five_programs(grid_for_5000):
    """#exercises: five programs; the last covers elements 4096 to 4999 and masks 120 lanes."""
    return "grid = (5,)" in grid_for_5000 and grid_for_5000.lines[-1].split() == ["4", "4096..4999", "904", "120"]


def claim_24_past_the_end(missing_mask):
    """#exercises: the result is still right, and the 24 elements after out's end are overwritten."""
    return ("all 2.0: True" in missing_mask
            and missing_mask.numbers("overwritten:")[:2] == [24.0, 256.0])


def claim_two_rows_untouched(grid_too_small):
    """#exercises: rows 0 and 1 sum to 1; rows 2 and 3 keep their nan: no program ran for them."""
    sums = grid_too_small.text.split("row sums: [")[1].split("]")[0].split(", ")
    return [abs(float(s) - 1) < 1e-6 for s in sums[:2]] == [True, True] and sums[2:] == ["nan", "nan"]


def claim_idle_lanes(idle_lanes):
    """#exercises: 424 of the 1024 lanes (41.4%) are masked; theory 03's kernel gives each program two rows."""
    return "424 masked lanes per program (41.4%)" in idle_lanes and "'ROWS': 2" in idle_lanes
