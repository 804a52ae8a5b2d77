"""The shipped weights: one torch state_dict file, checked against the digest the training run wrote."""

from __future__ import annotations

import ctypes
import hashlib
from pathlib import Path

import torch

INPUTS = ("minigpt/grammar_minigpt.pt",)  # snippets that load the weights re-run when they change
WEIGHTS_PATH = Path(__file__).with_name("grammar_minigpt.pt")


def tensor_digest(state: dict[str, torch.Tensor]) -> str:
    """SHA-256 of the names, dtypes, shapes and bytes of a state_dict (file bytes vary between saves)."""
    digest = hashlib.sha256()
    for name in sorted(state):
        tensor = state[name].detach().cpu().contiguous()
        digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
        digest.update(ctypes.string_at(tensor.data_ptr(), tensor.nbytes))  # no NumPy needed
    return digest.hexdigest()


def load_state_dict(path: Path = WEIGHTS_PATH) -> dict[str, torch.Tensor]:
    """The shipped float32 state_dict on CPU; ValueError when it is not the one `shipped` describes."""
    from . import shipped  # written by the training run, next to the weights

    state = torch.load(path, map_location="cpu", weights_only=True)
    if tensor_digest(state) != shipped.WEIGHTS_SHA256:
        raise ValueError(f"{path.name} does not match shipped.WEIGHTS_SHA256: re-run python -m snippets.minigpt.train")
    return state
