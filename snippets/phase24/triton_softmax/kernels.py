"""The course's softmax in Triton: forward and backward kernels over the last dimension,
the launch configuration that picks their tile, and the wrappers that call them on tensors.

Every other softmax snippet imports from here. On a machine without a GPU, set
TRITON_INTERPRET=1 before importing this module and the same kernels run on CPU tensors.
"""

import torch
import triton
import triton.language as tl

MAX_COLS = 32768  # the forward holds a whole row in one program's registers


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_rows,
                   N_COLS: tl.constexpr, BLOCK_COLS: tl.constexpr, ROWS: tl.constexpr, UPCAST: tl.constexpr):
    """y = softmax(x) along each row of a contiguous (n_rows, N_COLS) matrix, ROWS rows per program."""
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_COLS)
    in_row = cols[None, :] < N_COLS
    offsets = tl.minimum(rows, n_rows - 1)[:, None] * N_COLS + cols[None, :]
    x = tl.load(x_ptr + offsets, mask=in_row, other=-float("inf"))
    if UPCAST:
        x = x.to(tl.float32)
    shifted = x - tl.max(x, axis=1)[:, None]
    numerator = tl.exp(shifted)
    denominator = tl.sum(numerator, axis=1)
    y = numerator / denominator[:, None]
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=in_row & (rows[:, None] < n_rows))


@triton.jit
def softmax_backward_kernel(y_ptr, dy_ptr, dx_ptr, n_rows, N_COLS: tl.constexpr, CHUNK: tl.constexpr,
                            ROWS: tl.constexpr, UPCAST: tl.constexpr, KEEP_LAST: tl.constexpr):
    """dx = y * (dy - sum(y * dy)) along each row: the vector-Jacobian product of softmax.

    Two passes over CHUNK columns at a time: the first sums y * dy, the second reads y and dy
    again (from the L2 cache, where the first pass asked to keep them) and writes dx. With
    KEEP_LAST, the row's last chunk is read once and stays in registers for both passes.
    """
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    starts = tl.minimum(rows, n_rows - 1)[:, None] * N_COLS
    if UPCAST:
        partial = tl.zeros([ROWS, CHUNK], dtype=tl.float32)
    else:
        partial = tl.zeros([ROWS, CHUNK], dtype=dx_ptr.dtype.element_ty)
    if KEEP_LAST:
        looped = (N_COLS - 1) // CHUNK * CHUNK  # the columns before the last chunk
    else:
        looped = N_COLS
    for first in tl.range(0, looped, CHUNK):
        cols = first + tl.arange(0, CHUNK)[None, :]
        y = tl.load(y_ptr + starts + cols, mask=cols < N_COLS, other=0.0, eviction_policy="evict_last")
        dy = tl.load(dy_ptr + starts + cols, mask=cols < N_COLS, other=0.0, eviction_policy="evict_last")
        partial += y.to(partial.dtype) * dy.to(partial.dtype)
    if KEEP_LAST:
        kept = looped + tl.arange(0, CHUNK)[None, :]
        y_kept = tl.load(y_ptr + starts + kept, mask=kept < N_COLS, other=0.0, eviction_policy="evict_first")
        dy_kept = tl.load(dy_ptr + starts + kept, mask=kept < N_COLS, other=0.0, eviction_policy="evict_first")
        partial += y_kept.to(partial.dtype) * dy_kept.to(partial.dtype)
    dot = tl.sum(partial, axis=1)[:, None]
    if KEEP_LAST:
        dx = y_kept.to(dot.dtype) * (dy_kept.to(dot.dtype) - dot)
        tl.store(dx_ptr + starts + kept, dx.to(dx_ptr.dtype.element_ty), mask=(kept < N_COLS) & (rows[:, None] < n_rows))
    for first in tl.range(0, looped, CHUNK):
        cols = first + tl.arange(0, CHUNK)[None, :]
        y = tl.load(y_ptr + starts + cols, mask=cols < N_COLS, other=0.0, eviction_policy="evict_first")
        dy = tl.load(dy_ptr + starts + cols, mask=cols < N_COLS, other=0.0, eviction_policy="evict_first")
        dx = y.to(dot.dtype) * (dy.to(dot.dtype) - dot)
        tl.store(dx_ptr + starts + cols, dx.to(dx_ptr.dtype.element_ty), mask=(cols < N_COLS) & (rows[:, None] < n_rows))


def launch_config(n_cols: int) -> dict[str, int]:
    """Forward tile and warps for rows of `n_cols` elements: BLOCK_COLS, ROWS per program, num_warps.

    Measured on an H200 (TUNING.md): tiles of at least 2048 elements; narrow rows get several
    rows per program to fill one.
    """
    block_cols = triton.next_power_of_2(n_cols)
    return {"BLOCK_COLS": block_cols, "ROWS": max(1, 2048 // block_cols),
            "num_warps": max(2, min(16, block_cols // 512))}


def backward_config(n_cols: int) -> dict[str, int]:
    """Backward chunk, rows per program, warps, pipeline stages and KEEP_LAST for rows of `n_cols` elements.

    Measured on an H200 (TUNING.md): chunks of up to 8192 columns with more warps for wider rows, which
    also keeps fewer rows in flight, so that the second pass still finds them in the L2 cache; rows
    wider than 8192 take chunks of 16384 columns with 16 warps and keep their last chunk in registers.
    """
    block_cols = triton.next_power_of_2(n_cols)
    if block_cols > 8192:
        return {"CHUNK": 16384, "ROWS": 1, "num_warps": 16, "num_stages": 2, "KEEP_LAST": True}
    return {"CHUNK": block_cols, "ROWS": max(1, 2048 // block_cols),
            "num_warps": min(32, max(8, block_cols // 256)), "num_stages": 2, "KEEP_LAST": False}


def _as_rows(t: torch.Tensor) -> torch.Tensor:
    """A contiguous (rows, columns) view of `t` over its last dimension."""
    if t.shape[-1] > MAX_COLS:
        raise ValueError(f"rows of {t.shape[-1]} elements exceed MAX_COLS={MAX_COLS}")
    return t.contiguous().view(-1, t.shape[-1])


def _no_wrap(kernel):
    return kernel


def softmax(x: torch.Tensor, dim: int = -1, wrap=_no_wrap) -> torch.Tensor:
    """torch.softmax(x, dim) for the last dimension, by softmax_kernel.

    Inside a triton_op, `wrap` is torch.library.wrap_triton.
    """
    if dim not in (-1, x.dim() - 1):
        raise ValueError(f"the kernel normalises the last dimension, not dim={dim}")
    x2 = _as_rows(x)
    y2 = torch.empty_like(x2)
    n_rows, n_cols = x2.shape[0], int(x2.shape[1])  # int(): a compile-time constant, even when traced
    if y2.numel():
        config = launch_config(n_cols)
        wrap(softmax_kernel)[(triton.cdiv(n_rows, config["ROWS"]),)](
            x2, y2, n_rows, N_COLS=n_cols, UPCAST=x.dtype in (torch.float16, torch.bfloat16), **config)
    return y2.view(x.shape)


def softmax_backward(y: torch.Tensor, dy: torch.Tensor, wrap=_no_wrap) -> torch.Tensor:
    """The gradient of softmax(x, dim=-1) for output `y` and upstream gradient `dy`."""
    y2, dy2 = _as_rows(y), _as_rows(dy)
    dx2 = torch.empty_like(y2)
    n_rows, n_cols = y2.shape[0], int(y2.shape[1])
    if dx2.numel():
        config = backward_config(n_cols)
        wrap(softmax_backward_kernel)[(triton.cdiv(n_rows, config["ROWS"]),)](
            y2, dy2, dx2, n_rows, N_COLS=n_cols, UPCAST=y.dtype in (torch.float16, torch.bfloat16), **config)
    return dx2.view(y.shape)
