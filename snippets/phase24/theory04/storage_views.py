"""Tensor = Storage + view: which identity checks work, and the strides and offsets of views."""

import warnings

import torch


def identity_checks() -> dict[str, object]:
    """The common check `x.storage() is y.storage()` next to the checks that compare the bytes."""
    x = torch.arange(12).reshape(3, 4)
    y = x.t()
    torch.storage._reset_warn_typed_storage_removal()  # torch warns once per process: whatever ran before
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        typed_is = x.storage() is y.storage()
        typed_self = x.storage() is x.storage()
    return {
        "x.storage() is y.storage()": typed_is,
        "x.storage() is x.storage()": typed_self,
        "warning raised by .storage()": f"{caught[0].category.__name__}: {str(caught[0].message).split('.')[0]}",
        "x.untyped_storage() is y.untyped_storage()": x.untyped_storage() is y.untyped_storage(),
        "same data_ptr() of the untyped storage": x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr(),
    }


def view_layouts() -> list[tuple[str, tuple, tuple, int, bool, bool]]:
    """(view, shape, stride, storage offset, contiguous, shares x's bytes) for views of one storage."""
    x = torch.arange(12).reshape(3, 4)
    base = x.untyped_storage().data_ptr()
    views = {"x": x, "x.t()": x.t(), "x[1:, 2:]": x[1:, 2:], "x[:, 1]": x[:, 1], "x.view(2, 6)": x.view(2, 6),
             "x.t().contiguous()": x.t().contiguous()}
    return [(name, tuple(v.shape), v.stride(), v.storage_offset(), v.is_contiguous(),
             v.untyped_storage().data_ptr() == base) for name, v in views.items()]


def main():
    for check, value in identity_checks().items():
        print(f"{check:44} {value}")
    print(f"\n{'view':20} {'shape':8} {'stride':8} {'offset':>6}  contiguous  shares x's bytes")
    for name, shape, stride, offset, contiguous, shared in view_layouts():
        print(f"{name:20} {str(shape):8} {str(stride):8} {offset:6}  {contiguous!s:10}  {shared}")


def claim_identity_checks(main):
    """#tensor-storage-view: x.storage() is y.storage() is False, and so is x.storage() is x.storage(); the call warns that it is deprecated; untyped_storage() hands back the same object, and the data pointers agree."""
    return (main.line("x.storage() is y.storage()").endswith("False") and main.line("x.storage() is x.storage()").endswith("False")
            and "TypedStorage is deprecated" in main.line("warning raised")
            and main.line("x.untyped_storage() is").endswith("True") and main.line("same data_ptr()").endswith("True"))


def claim_view_metadata(main):
    """#tensor-storage-view: x.t() swaps the strides and keeps the offset; x[1:, 2:] keeps the strides and moves the offset to 1 * 4 + 2; x[:, 1] takes one element every four; every view shares x's bytes and only .contiguous() of a non-contiguous view does not."""
    def row(name):
        return main.line(name + " ").split(name, 1)[1].split()
    return (row("x.t()")[2:5] == ["(1,", "4)", "0"] and row("x[1:, 2:]")[2:5] == ["(4,", "1)", "6"]
            and row("x[:, 1]")[1] == "(4,)" and all(row(n)[-1] == "True" for n in ("x.t()", "x[1:, 2:]", "x[:, 1]", "x.view(2, 6)"))
            and row("x.t().contiguous()")[-2:] == ["True", "False"])
