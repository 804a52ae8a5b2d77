"""The grammar MiniGPT in PyTorch: the NumPy reference ported op for op, with the same parameter names."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .config import CONFIG, ModelConfig
from .data import sample_ids
from .weights import load_state_dict


class CausalSelfAttention(nn.Module):
    """Multi-head attention where position t sees positions 0..t only."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.n_heads = cfg.n_heads
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.proj = nn.Linear(cfg.d_model, cfg.d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        H, D = self.n_heads, C // self.n_heads
        q, k, v = self.qkv(x).split(C, dim=-1)
        q, k, v = (t.reshape(B, T, H, D).transpose(1, 2) for t in (q, k, v))  # (B, H, T, D)
        scores = (q @ k.transpose(-2, -1)) * D**-0.5
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        weights = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
        return self.proj((weights @ v).transpose(1, 2).reshape(B, T, C))


class MLP(nn.Module):
    """Position-wise feed-forward: Linear, GELU (tanh form), Linear."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.fc = nn.Linear(cfg.d_model, cfg.d_mlp)
        self.proj = nn.Linear(cfg.d_mlp, cfg.d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(F.gelu(self.fc(x), approximate="tanh"))


class Block(nn.Module):
    """Pre-norm transformer block: x + attn(ln1(x)), then x + mlp(ln2(x))."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.d_model, eps=cfg.ln_eps)
        self.attn = CausalSelfAttention(cfg)
        self.ln2 = nn.LayerNorm(cfg.d_model, eps=cfg.ln_eps)
        self.mlp = MLP(cfg)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GrammarMiniGPT(nn.Module):
    """Token ids (B, T) -> next-token logits (B, T, 600); the LM head is `nn.Linear(64, 600)`."""

    def __init__(self, cfg: ModelConfig = CONFIG):
        super().__init__()
        self.config = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos_emb = nn.Embedding(cfg.block_size, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.ln_f = nn.LayerNorm(cfg.d_model, eps=cfg.ln_eps)
        self.lm_head = nn.Linear(cfg.d_model, cfg.vocab_size)

    def features(self, idx: torch.Tensor) -> torch.Tensor:
        """The (B, T, 64) hidden states the LM head reads."""
        positions = torch.arange(idx.shape[1], device=idx.device)
        x = self.tok_emb(idx) + self.pos_emb(positions)
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.lm_head(self.features(idx))


def load_pretrained() -> GrammarMiniGPT:
    """The model with the shipped weights: float32, on CPU, in eval mode."""
    model = GrammarMiniGPT()
    model.load_state_dict(load_state_dict())
    return model.eval()


def sample_batch(batch: int, seq_len: int, seed: int) -> torch.LongTensor:
    """(batch, seq_len) token ids from the grammar, each row starting at `<bos>`; seeded."""
    return torch.tensor(sample_ids(batch, seq_len, seed), dtype=torch.long)
