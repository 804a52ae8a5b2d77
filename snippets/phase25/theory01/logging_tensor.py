"""A tensor subclass with __torch_dispatch__: it carries the Python key and sees every ATen call, backward too."""

import textwrap

import torch
import torch.nn.functional as F
from torch.utils._pytree import tree_map

from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory01.dispatch_table import names


class LoggingTensor(torch.Tensor):
    """Wraps a plain tensor; every ATen op on it is logged, unwrapped, run, and rewrapped."""

    log: list = []

    @staticmethod
    def __new__(cls, inner: torch.Tensor):
        return torch.Tensor._make_wrapper_subclass(cls, inner.shape, dtype=inner.dtype, device=inner.device,
                                                   requires_grad=inner.requires_grad)

    def __init__(self, inner: torch.Tensor):
        self.inner = inner

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        cls.log.append(str(func).removeprefix("aten."))
        unwrap = lambda t: t.inner if isinstance(t, LoggingTensor) else t  # noqa: E731
        wrap = lambda t: LoggingTensor(t) if isinstance(t, torch.Tensor) else t  # noqa: E731
        return tree_map(wrap, func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {})))


def experiment() -> dict[str, str]:
    """Key set of a LoggingTensor, and the ops it logs in linear's forward and backward."""
    x, W, b = (LoggingTensor(t.detach()).requires_grad_() for t in make_inputs())
    LoggingTensor.log = []
    loss = F.linear(x, W, b).sum()
    forward = LoggingTensor.log
    LoggingTensor.log = []
    loss.backward()
    return {
        "key set of LoggingTensor(x)": ", ".join(names(torch._C._dispatch_keys(x))),
        "forward: loss = F.linear(x, W, b).sum()": ", ".join(forward),
        "backward: loss.backward()": ", ".join(LoggingTensor.log),
        "type(W.grad), W.grad.shape": f"{type(W.grad).__name__}, {tuple(W.grad.shape)}",
    }


def main():
    for label, value in experiment().items():
        print(f"{label}:")
        print(textwrap.fill(value, width=96, initial_indent="    ", subsequent_indent="    "))


def claim_subclass_keys(main):
    """#subclass: the key set gains Python (below autograd) and PythonTLSSnapshot (near the top)."""
    keys = main.between("key set of LoggingTensor(x):").lines[0].strip().split(", ")
    return keys.index("Python") < keys.index("AutogradCPU") and keys[-1] == "PythonTLSSnapshot"


def claim_decomposed_forward(main):
    """#subclass: __torch_dispatch__ receives the op after linear has already decomposed (t, addmm)."""
    return main.between("forward:", "backward:").text.strip() == "t.default, addmm.default, sum.default"


def claim_backward_ops(main):
    """#subclass: the backward's ops arrive too: mm twice for the two gradients, t, and sum for the bias."""
    ops = main.between("backward: loss.backward():", "type(W.grad)").text.replace(",", " ").split()
    return ops.count("mm.default") == 2 and "t.default" in ops and "sum.dim_IntList" in ops \
        and main.between("type(W.grad)").text.strip().startswith("LoggingTensor")
