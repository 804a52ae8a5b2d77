"""The drill problems, each answered by running code (drill 3 needs a GPU: see drill_copies.py)."""

import warnings

import torch

from snippets.phase24.theory04.tiny_mlp import TinyMLP


def drill1_contiguous() -> dict[str, object]:
    """Why x.t().contiguous() allocates: the bytes must be reordered, so they go to a new storage."""
    x = torch.arange(12.0).reshape(3, 4)
    t = x.t()
    c = t.contiguous()
    base = x.untyped_storage().data_ptr()
    return {
        "x.t() stride": t.stride(),
        "x.t().contiguous() stride": c.stride(),
        "new storage": c.untyped_storage().data_ptr() != base,
        "its bytes": c.untyped_storage().nbytes(),
        "storage order of x.t().contiguous()": c.flatten().tolist(),
        "x.contiguous() is x (already contiguous: no copy)": x.contiguous() is x,
    }


def drill2_data_ptr() -> dict[str, object]:
    """What storage().data_ptr() gives: the address of the first byte, an int (not printed: it changes)."""
    w = TinyMLP().fc1.weight
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # .storage() is deprecated, and the text uses it
        typed = w.storage().data_ptr()
    return {
        "type": type(typed).__name__,
        "equals w.untyped_storage().data_ptr()": typed == w.untyped_storage().data_ptr(),
        "equals w.data_ptr() (offset 0)": typed == w.data_ptr(),
        "w[1].data_ptr() - w.data_ptr() (bytes)": w[1].data_ptr() - w.data_ptr(),
        "w.stride(0) * w.element_size()": w.stride(0) * w.element_size(),
        "device of those bytes": str(w.device),
    }


def drill4_precision(seed: int = 0) -> dict[str, object]:
    """Why float16 and float32 differ: 10 mantissa bits, a range that ends at 65504, and rounding that
    depends on the order of the additions."""
    g = torch.Generator().manual_seed(seed)
    x, w = torch.randn(64, generator=g), torch.randn(64, generator=g)
    exact = torch.dot(x.double(), w.double())
    a, b, c = torch.tensor(1e8), torch.tensor(-1e8), torch.tensor(1.0)
    return {
        "float16 eps, max": (torch.finfo(torch.float16).eps, torch.finfo(torch.float16).max),
        "float32 eps": torch.finfo(torch.float32).eps,
        "torch.tensor(70000.0).half()": torch.tensor(70000.0).half().item(),
        "(1e8 + -1e8) + 1 vs 1e8 + (-1e8 + 1), float32": ((a + b + c).item(), (a + (b + c)).item()),
        "64-term dot product, |error| in float32": abs(torch.dot(x, w).double() - exact).item(),
        "64-term dot product, |error| in float16": abs(torch.dot(x.half(), w.half()).double() - exact).item(),
    }


def show(answer: dict[str, object]) -> None:
    for key, value in answer.items():
        print(f"{key:50} {value}")


def drill1():
    show(drill1_contiguous())


def drill2():
    show(drill2_data_ptr())


def drill4():
    show(drill4_precision())
