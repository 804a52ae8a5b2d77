"""A tensor is a storage plus (sizes, strides, offset, dtype, device): views rewrite the metadata, not the data."""

import torch


def describe(t: torch.Tensor) -> str:
    """The metadata a TensorImpl keeps next to its storage."""
    return (f"sizes {tuple(t.shape)}, strides {t.stride()}, offset {t.storage_offset()}, "
            f"contiguous {t.is_contiguous()}")


def same_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether two tensors view the same block of memory."""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def storage_of_x() -> str:
    """The storage is untyped bytes; dtype and device belong to the tensor's metadata."""
    x = torch.arange(12.0).reshape(3, 4)
    storage = x.untyped_storage()
    return (f"{storage.nbytes()} bytes = {x.numel()} elements x {x.element_size()} bytes ({x.dtype}), "
            f"on {storage.device}")


def views() -> dict[str, str]:
    """A (3, 4) tensor and three views of it: each line says whether the storage is shared."""
    x = torch.arange(12.0).reshape(3, 4)
    examples = {
        "x = arange(12).reshape(3, 4)": x,
        "x.t()": x.t(),
        "x[1:, ::2]": x[1:, ::2],
        "x.narrow(1, 1, 2)": x.narrow(1, 1, 2),
        "x.t().contiguous()": x.t().contiguous(),
    }
    return {name: f"{describe(t)}, shares x's storage {same_storage(t, x)}" for name, t in examples.items()}


def rebuilt_from_storage() -> str:
    """Rebuild x[1:, ::2] from nothing but x's storage and the view's (sizes, strides, offset)."""
    x = torch.arange(12.0).reshape(3, 4)
    view = x[1:, ::2]
    rebuilt = torch.empty(0).set_(x.untyped_storage(), view.storage_offset(), view.shape, view.stride())
    return f"{rebuilt.tolist()} equal to x[1:, ::2]: {torch.equal(rebuilt, view)}"


def element_address(i: int = 1, j: int = 1) -> tuple[str, int, float, float]:
    """Element [i, j] of a view lives at storage[offset + i * stride0 + j * stride1]."""
    x = torch.arange(12.0).reshape(3, 4)
    view = x[1:, ::2]
    flat = torch.empty(0).set_(x.untyped_storage(), 0, (x.numel(),), (1,))  # the storage as a 1-D tensor
    offset, (s0, s1) = view.storage_offset(), view.stride()
    index = offset + i * s0 + j * s1
    return f"{offset} + {i}*{s0} + {j}*{s1}", index, view[i, j].item(), flat[index].item()


def contiguity() -> dict[str, str]:
    """view() needs strides it can reuse; reshape() copies when it must."""
    xt = torch.arange(12.0).reshape(3, 4).t()
    try:
        xt.view(12)
        view_result = "worked"
    except RuntimeError as error:
        view_result = f"RuntimeError: {str(error).split('.')[0]}."
    reshaped = xt.reshape(12)
    return {
        "x.t().view(12)": view_result,
        "x.t().reshape(12)": f"{describe(reshaped)}, shares storage {same_storage(reshaped, xt)}",
    }


def main():
    print(f"x.untyped_storage():           {storage_of_x()}\n")
    for name, line in views().items():
        print(f"{name:30} {line}")
    print(f"\nrebuilt from storage:          {rebuilt_from_storage()}")
    formula, index, in_view, in_storage = element_address(1, 1)
    print(f"address arithmetic:            x[1:, ::2][1, 1] = {in_view}; offset + i*stride0 + j*stride1 = "
          f"{formula} = {index}; storage[{index}] = {in_storage}")
    print()
    for name, line in contiguity().items():
        print(f"{name:30} {line}")


def claim_storage_bytes(main):
    """#tensorimpl: The storage knows bytes and a device, not a dtype or a shape."""
    return main.line("x.untyped_storage():").split(":", 1)[1].strip().startswith("48 bytes")


def claim_views(main):
    """#tensorimpl: t(), slicing and narrow share x's storage; x[1:, ::2] starts 4 elements in and steps 4 per row
    and 2 per column."""
    return (all(main.line(view).endswith("shares x's storage True") for view in ("x.t() ", "x[1:, ::2] ", "x.narrow("))
            and "sizes (2, 2), strides (4, 2), offset 4" in main.line("x[1:, ::2] "))


def claim_rebuilt(main):
    """#tensorimpl: setting the view's sizes, strides and offset on x's storage rebuilds it; the element sits at
    offset + i*stride0 + j*stride1."""
    return main.line("rebuilt from storage:").endswith("True") and "= 4 + 1*4 + 1*2 = 10; storage[10] = 10.0" in main


def claim_copies(main):
    """#tensorimpl: contiguous() copies into a fresh storage; view() refuses; reshape() copies."""
    return (main.line("x.t().contiguous()").endswith("shares x's storage False")
            and "RuntimeError" in main.line("x.t().view(12)") and main.line("x.t().reshape(12)").endswith("shares storage False"))
