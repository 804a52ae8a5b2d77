"""Three ways to watch one call, each at a different layer of the stack."""

import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode


class LogDispatch(TorchDispatchMode):
    """Records every ATen op that reaches the Python dispatch key (below autograd)."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.calls.append(str(func))
        return func(*args, **(kwargs or {}))


class LogFunctions(TorchFunctionMode):
    """Records every torch API function called from Python (above the dispatcher)."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.calls.append(getattr(func, "__name__", str(func)))
        return func(*args, **(kwargs or {}))


def dispatched_ops(fn, *args) -> list[str]:
    """ATen ops seen by a TorchDispatchMode while `fn(*args)` runs."""
    with LogDispatch() as log:
        fn(*args)
    return log.calls


def function_calls(fn, *args) -> list[str]:
    """Python-level torch functions seen by a TorchFunctionMode while `fn(*args)` runs."""
    with LogFunctions() as log:
        fn(*args)
    return log.calls


def pre_dispatch_ops(fn, *args) -> list[str]:
    """Ops in the graph make_fx traces before the dispatcher decomposes anything."""
    graph = make_fx(fn, pre_dispatch=True)(*args)
    return [str(node.target) for node in graph.graph.nodes if node.op == "call_function"]
