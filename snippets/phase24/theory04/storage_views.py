"""Tensor = Storage + view: which identity checks work, and the strides and offsets of views."""

import warnings

import torch


def identity_checks() -> dict[str, object]:
    """The text's `x.storage() is y.storage()` next to the checks that compare the bytes."""
    x = torch.arange(12).reshape(3, 4)
    y = x.t()
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
