"""Week 9's exercises: a view's metadata, which ops copy, a stride of 0, and which calls reach one overload."""

import torch

from snippets.phase25.theory01.one_key import kernel_for_key
from snippets.week09.tensor_impl import describe, same_storage


def base() -> torch.Tensor:
    """The (3, 4) tensor every view exercise starts from."""
    return torch.arange(12).view(3, 4)


def view_metadata() -> dict[str, str]:
    """Exercise 1: sizes, strides, offset and contiguity of four views of x."""
    x = base()
    return {name: describe(view) for name, view in
            {"x.t()": x.t(), "x[:, 1]": x[:, 1], "x[1]": x[1], "x[::2, 1:]": x[::2, 1:]}.items()}


def which_copy() -> dict[str, bool]:
    """Exercise 2: for each expression, whether its result shares x's storage (True) or is a copy (False)."""
    x = base()
    results = {"x.view(4, 3)": x.view(4, 3), "x.reshape(12)": x.reshape(12), "x.flatten()": x.flatten(),
               "x.contiguous()": x.contiguous(), "x.t().reshape(12)": x.t().reshape(12),
               "x.t().flatten()": x.t().flatten(), "x.t().contiguous()": x.t().contiguous()}
    return {name: same_storage(result, x) for name, result in results.items()}


def stride_zero() -> dict[str, str]:
    """Exercise 3: expand() repeats a row without copying it, with a stride of 0; writing into it fails."""
    row = torch.arange(3)
    grid = row.expand(4, 3)
    try:
        grid.add_(1)
        written = "worked"
    except RuntimeError as error:
        written = f"RuntimeError: {str(error).split('.')[0]}."
    return {"row.expand(4, 3)": describe(grid),
            "elements and storage": f"{grid.numel()} elements over {grid.untyped_storage().nbytes()} bytes "
                                    f"= {grid.untyped_storage().nbytes() // grid.element_size()} stored values",
            "shares row's storage": str(same_storage(grid, row)),
            "grid.add_(1)": written}


def overload_calls() -> dict[str, tuple[int, bool]]:
    """Exercise 4: a counting CPU kernel for aten::mul.Tensor; how often five calls reach it, and whether each
    result equals the built-in kernel's."""
    a, b, out = torch.ones(2, 3), torch.full((2, 3), 2.0), torch.empty(2, 3)
    calls = []

    def my_mul_cpu(self, other):
        calls.append(1)  # a number on the right arrives as a Python number, not a tensor
        return torch.div(self, torch.as_tensor(other, dtype=self.dtype).reciprocal())  # div: no recursion

    expressions = {"a * b": lambda: a * b, "a * 2": lambda: a * 2, "torch.mul(a, b)": lambda: torch.mul(a, b),
                   "torch.mul(a, b, out=out)": lambda: torch.mul(a, b, out=out),
                   "a.clone().mul_(b)": lambda: a.clone().mul_(b)}
    results = {}
    with kernel_for_key("aten::mul.Tensor", "CPU", my_mul_cpu):
        for name, call in expressions.items():
            before = len(calls)
            result = call()
            results[name] = (len(calls) - before, result)
    return {name: (count, torch.equal(result, expressions[name]())) for name, (count, result) in results.items()}


def main_metadata():
    for name, line in view_metadata().items():
        print(f"{name:12} {line}")


def main_copies():
    for name, shares in which_copy().items():
        print(f"{name:20} " + ("shares x's storage" if shares else "copies"))


def main_stride_zero():
    for name, line in stride_zero().items():
        print(f"{name:22} {line}")


def main_overloads():
    for name, (count, equal) in overload_calls().items():
        print(f"{name:26} my_mul_cpu ran {count} time(s), result equal to the built-in kernel's: {equal}")


def claim_metadata(main_metadata):
    """#exercises: x.t() has strides (1, 4) and is not contiguous; x[:, 1] starts at offset 1 with stride 4;
    x[1] starts at 4 and is contiguous; x[::2, 1:] has strides (8, 1), offset 1, and is not contiguous."""
    return (main_metadata.line("x.t()").endswith("sizes (4, 3), strides (1, 4), offset 0, contiguous False")
            and main_metadata.line("x[:, 1]").endswith("sizes (3,), strides (4,), offset 1, contiguous False")
            and main_metadata.line("x[1] ").endswith("sizes (4,), strides (1,), offset 4, contiguous True")
            and main_metadata.line("x[::2, 1:]").endswith("sizes (2, 3), strides (8, 1), offset 1, contiguous False"))


def claim_copies(main_copies):
    """#exercises: view, reshape, flatten and contiguous() share x's storage; on x.t() reshape, flatten and
    contiguous() copy."""
    shared = ("x.view(4, 3)", "x.reshape(12)", "x.flatten()", "x.contiguous()")
    copied = ("x.t().reshape(12)", "x.t().flatten()", "x.t().contiguous()")
    return (all(main_copies.line(f"{name} ").endswith("shares x's storage") for name in shared)
            and all(main_copies.line(f"{name} ").endswith("copies") for name in copied))


def claim_stride_zero(main_stride_zero):
    """#exercises: the expanded (4, 3) tensor has strides (0, 1): 12 elements over 3 stored values (24 bytes),
    shared with the row; add_ refuses to write into it."""
    return (main_stride_zero.line("row.expand").endswith("sizes (4, 3), strides (0, 1), offset 0, contiguous False")
            and main_stride_zero.line("elements and storage").endswith("12 elements over 24 bytes = 3 stored values")
            and main_stride_zero.line("shares row").endswith("True")
            and "RuntimeError: unsupported operation: more than one element" in main_stride_zero.line("add_(1)"))


def claim_overloads(main_overloads):
    """#exercises: a * b, a * 2 and torch.mul(a, b) run the kernel once each; the out= and in-place calls never
    reach it; every result equals the built-in kernel's."""
    ran = {line.split("my_mul_cpu")[0].strip(): line.split("ran ")[1].split(",")[0] for line in main_overloads.lines}
    return all(line.endswith("kernel's: True") for line in main_overloads.lines) and ran == {"a * b": "1 time(s)", "a * 2": "1 time(s)", "torch.mul(a, b)": "1 time(s)",
                   "torch.mul(a, b, out=out)": "0 time(s)", "a.clone().mul_(b)": "0 time(s)"}
