"""The Phase-24 Triton softmax registered as a custom op: `nmb::softmax`, with a fake
implementation for tracing and an autograd formula whose backward is a second custom op.

Importing this module registers both ops (once per process).
"""

import torch

from snippets.phase24.triton_softmax import kernels


@torch.library.custom_op("nmb::softmax", mutates_args=())
def softmax(x: torch.Tensor) -> torch.Tensor:
    """softmax(x, dim=-1) by the Triton kernel; an opaque call for torch.compile."""
    return kernels.softmax(x)


@softmax.register_fake
def _(x):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@torch.library.custom_op("nmb::softmax_backward", mutates_args=())
def softmax_backward(y: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    """The gradient of nmb::softmax by the Triton backward kernel."""
    return kernels.softmax_backward(y, dy)


@softmax_backward.register_fake
def _(y, dy):
    return torch.empty_like(y, memory_format=torch.contiguous_format)


def save_output(ctx, inputs, output):
    """What backward needs: the softmax output alone (dx = y * (dy - sum(y * dy)))."""
    ctx.save_for_backward(output)


def backward(ctx, grad_output):
    (y,) = ctx.saved_tensors
    return softmax_backward(y, grad_output)


softmax.register_autograd(backward, setup_context=save_output)
