"""The grammar MiniGPT in NumPy: the reference the PyTorch port must reproduce."""

from __future__ import annotations

import numpy as np

from .config import CONFIG, ModelConfig
from .weights import load_state_dict


def linear(x: np.ndarray, params: dict, name: str) -> np.ndarray:
    """x @ W.T + b, with W stored (out, in) as torch stores it."""
    return x @ params[f"{name}.weight"].T + params[f"{name}.bias"]


def layer_norm(x: np.ndarray, params: dict, name: str, eps: float) -> np.ndarray:
    """Normalise the last axis to mean 0, variance 1 (biased), then scale and shift."""
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * params[f"{name}.weight"] + params[f"{name}.bias"]


def softmax(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, shifted by the row maximum."""
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    """GELU, tanh approximation (torch's `approximate="tanh"`)."""
    return 0.5 * x * (1.0 + np.tanh(np.float32(np.sqrt(2.0 / np.pi)) * (x + np.float32(0.044715) * x**3)))


def attention(x: np.ndarray, params: dict, name: str, n_heads: int) -> np.ndarray:
    """Causal multi-head self-attention."""
    B, T, C = x.shape
    D = C // n_heads
    q, k, v = np.split(linear(x, params, f"{name}.qkv"), 3, axis=-1)
    q, k, v = (t.reshape(B, T, n_heads, D).transpose(0, 2, 1, 3) for t in (q, k, v))
    scores = (q @ k.transpose(0, 1, 3, 2)) * np.float32(D**-0.5)
    scores = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, np.float32(-np.inf))
    out = (softmax(scores) @ v).transpose(0, 2, 1, 3).reshape(B, T, C)
    return linear(out, params, f"{name}.proj")


class NumpyMiniGPT:
    """Token ids (B, T) -> logits (B, T, 600), from a dict of arrays named like the torch state_dict."""

    def __init__(self, params: dict[str, np.ndarray], cfg: ModelConfig = CONFIG):
        self.params, self.config = params, cfg

    def features(self, idx: np.ndarray) -> np.ndarray:
        """The (B, T, 64) hidden states the LM head reads."""
        p, cfg = self.params, self.config
        x = p["tok_emb.weight"][idx] + p["pos_emb.weight"][: idx.shape[1]]
        for i in range(cfg.n_layers):
            b = f"blocks.{i}"
            x = x + attention(layer_norm(x, p, f"{b}.ln1", cfg.ln_eps), p, f"{b}.attn", cfg.n_heads)
            h = gelu_tanh(linear(layer_norm(x, p, f"{b}.ln2", cfg.ln_eps), p, f"{b}.mlp.fc"))
            x = x + linear(h, p, f"{b}.mlp.proj")
        return layer_norm(x, p, "ln_f", cfg.ln_eps)

    def __call__(self, idx: np.ndarray) -> np.ndarray:
        return linear(self.features(idx), self.params, "lm_head")


def load_pretrained() -> NumpyMiniGPT:
    """The reference with the shipped weights, float32."""
    return NumpyMiniGPT({name: t.numpy() for name, t in load_state_dict().items()})
