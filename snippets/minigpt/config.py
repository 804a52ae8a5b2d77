"""The MiniGPT's shape, shared by the NumPy reference and the PyTorch port."""

from __future__ import annotations

from dataclasses import dataclass

from .grammar import VOCAB


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of the grammar MiniGPT: 2 pre-norm blocks of 4-head attention and a 4x MLP."""

    vocab_size: int = len(VOCAB)
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    d_mlp: int = 256
    block_size: int = 64
    ln_eps: float = 1e-5


CONFIG = ModelConfig()
