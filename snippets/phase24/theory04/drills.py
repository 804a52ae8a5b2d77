"""Solutions of theory 04's exercises 1, 2 and 6, each answered by running code (exercise 5 needs a GPU:
see drill_copies.py)."""

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
        "in memory order": c.flatten().tolist(),
        "x.contiguous() is x (no copy)": x.contiguous() is x,
    }


def drill2_data_ptr() -> dict[str, object]:
    """What storage().data_ptr() gives: the address of the first byte, an int (not printed: it changes)."""
    w = TinyMLP().fc1.weight
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # .storage() is deprecated, and older code uses it
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
    width = max(map(len, answer))
    for key, value in answer.items():
        print(f"{key:{width}}  {value}")


def drill1():
    show(drill1_contiguous())


def drill2():
    show(drill2_data_ptr())


def drill4():
    show(drill4_precision())


def claim_drill1(drill1):
    """#exercises: the transposed view has strides (1, 4), the contiguous copy (3, 1) in a new storage; an already contiguous tensor is returned as it is."""
    return (drill1.line("x.t() stride").endswith("(1, 4)") and drill1.line("x.t().contiguous() stride").endswith("(3, 1)")
            and drill1.line("new storage").endswith("True") and drill1.line("(no copy)").endswith("True"))


def claim_drill2(drill2):
    """#exercises: row 1 starts 256 bytes after row 0; data_ptr() is an int; the weight starts at the storage's first byte and row 1 starts one row of 64 float32 values, stride(0) * element_size() bytes, later; .storage().data_ptr() gives the same address."""
    return (drill2.lines[0].split() == ["type", "int"] and drill2.line("offset 0").endswith("True")
            and drill2.line("untyped_storage().data_ptr()").endswith("True")
            and drill2.number("w[1].data_ptr() - w.data_ptr() (bytes)") == drill2.number("w.stride(0) * w.element_size()") == 64 * 4)


def claim_drill4(drill4):
    """#exercises: float16 keeps 10 bits of mantissa against float32's 23 (the two eps); beyond float16's max values become inf; rounded addition is not associative; the dot product's error in float16 is orders of magnitude larger than in float32."""
    return (drill4.number("float16 eps, max") == 2.0 ** -10 and drill4.number("float32 eps") == 2.0 ** -23
            and drill4.line(".half()").endswith("inf") and drill4.line("(1e8 + -1e8) + 1").endswith("(1.0, 0.0)")
            and drill4.number("in float16") > 100 * drill4.number("in float32"))
