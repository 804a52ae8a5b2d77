"""Comparing a learner's result with the reference's, in one sentence a learner can act on (torch is
imported when something is compared, not when the workbench is)."""

from __future__ import annotations

import math


class Wrong(AssertionError):
    """What a learner's code got wrong, said as a sentence."""


def _index(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    import torch

    return tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), shape))


def _tensor(what: str, got, want: torch.Tensor, atol: float, rtol: float) -> None:
    import torch

    if not isinstance(got, torch.Tensor):
        raise Wrong(f"{what} is a {type(got).__name__}, expected a tensor of shape {tuple(want.shape)}")
    if got.shape != want.shape:
        raise Wrong(f"{what} has shape {tuple(got.shape)}, expected {tuple(want.shape)}: "
                    "a gradient has the shape of the tensor it is the gradient of")
    if got.dtype != want.dtype:
        raise Wrong(f"{what} is {got.dtype}, expected {want.dtype}: keep the dtype of the inputs")
    if not want.is_floating_point():
        if not torch.equal(got, want):
            flat = int((got != want).flatten().nonzero()[0])
            raise Wrong(f"{what}: element {_index(flat, want.shape)} is {got.flatten()[flat].item()}, "
                        f"expected {want.flatten()[flat].item()}")
        return
    got, want = got.detach(), want.detach()
    same = (got == want) | (got.isnan() & want.isnan())  # an inf or a NaN where the reference has one
    error = torch.where(same, 0.0, (got - want).abs().nan_to_num(math.inf))
    allowed = atol + rtol * want.abs()
    bad = error > allowed
    if bool(bad.any()):
        flat = int((error - allowed).flatten().argmax())
        raise Wrong(f"{what}: element {_index(flat, want.shape)} is {got.flatten()[flat].item():.6g}, expected "
                    f"{want.flatten()[flat].item():.6g} (off by {error.flatten()[flat].item():.2e}, the "
                    f"tolerance is {allowed.flatten()[flat].item():.1e}); {int(bad.sum())} of {want.numel()} "
                    "elements are off")


def agree(what: str, got, want, atol: float = 0.0, rtol: float = 0.0) -> None:
    """Raise Wrong, naming `what` and the first place they differ, unless `got` matches `want`."""
    import torch

    if isinstance(want, torch.Tensor):
        return _tensor(what, got, want, atol, rtol)
    if isinstance(want, dict):
        if not isinstance(got, dict) or got.keys() != want.keys():
            keys = sorted(got) if isinstance(got, dict) else type(got).__name__
            raise Wrong(f"{what} should be a dict with the keys {sorted(want)}, not {keys}")
        for key in want:
            agree(f"{what}[{key!r}]", got[key], want[key], atol, rtol)
        return None
    if isinstance(want, (list, tuple)):
        if not isinstance(got, (list, tuple)) or len(got) != len(want):
            size = len(got) if isinstance(got, (list, tuple)) else type(got).__name__
            raise Wrong(f"{what} should hold {len(want)} items, not {size}")
        for i, (g, w) in enumerate(zip(got, want)):
            agree(f"{what}[{i}]", g, w, atol, rtol)
        return None
    if isinstance(want, float) and not isinstance(got, bool) and isinstance(got, (int, float)):
        if not abs(got - want) <= atol + rtol * abs(want):
            raise Wrong(f"{what} is {got:.6g}, expected {want:.6g} (off by {abs(got - want):.2e}, "
                        f"the tolerance is {atol + rtol * abs(want):.1e})")
        return None
    if got != want:
        raise Wrong(f"{what} is {got!r}, expected {want!r}")
    return None
