"""The first Triton kernel: out = x + y, one block of BLOCK elements per program."""

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Program `pid` adds elements pid * BLOCK to pid * BLOCK + BLOCK - 1, those that exist."""
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def grid(n: int, block: int) -> tuple[int]:
    """One program per block of `block` elements, the last one possibly partly empty."""
    return (triton.cdiv(n, block),)


def add(x: torch.Tensor, y: torch.Tensor, block: int = 256) -> torch.Tensor:
    """x + y for two contiguous 1-d tensors of the same size, by add_kernel."""
    out = torch.empty_like(x)
    add_kernel[grid(x.numel(), block)](x, y, out, x.numel(), BLOCK=block)
    return out


def main():
    x, y = torch.randn(1000), torch.randn(1000)
    out = add(x, y, block=256)
    print(f"n = {x.numel()}, BLOCK = 256, grid = {grid(x.numel(), 256)}")
    print(f"max |add(x, y) - (x + y)| = {(out - (x + y)).abs().max().item()}")


def claim_four_programs(main):
    """#grid: 1000 elements in blocks of 256 take four programs."""
    return "grid = (4,)" in main


def claim_exact(main):
    """#grid: the kernel's sums are exactly torch's."""
    return main.number("max |add(x, y) - (x + y)| =", 0) == 0.0
