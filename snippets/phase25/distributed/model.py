"""The small model every pattern trains, its batch, its loss and its reference gradients."""

from __future__ import annotations

import copy

import torch
from torch import nn

VOCAB = 600
D_MODEL = 64


class Block(nn.Module):
    """A residual MLP block: x + fc2(gelu(fc1(x)))."""

    def __init__(self, d_model: int = D_MODEL, hidden: int = 4 * D_MODEL):
        super().__init__()
        self.fc1 = nn.Linear(d_model, hidden)
        self.fc2 = nn.Linear(hidden, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(x)))


class TinyLM(nn.Module):
    """Embedding, two residual blocks, and the LM head Linear(64, 600)."""

    def __init__(self, vocab: int = VOCAB, d_model: int = D_MODEL, n_blocks: int = 2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.blocks = nn.ModuleList(Block(d_model) for _ in range(n_blocks))
        self.lm_head = nn.Linear(d_model, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.lm_head(x)


def build_model(device: torch.device | str = "cpu", seed: int = 0) -> TinyLM:
    """The same weights on every rank: each rank seeds before building."""
    torch.manual_seed(seed)
    return TinyLM().to(device)


def make_batch(batch: int, device: torch.device | str = "cpu", seq_len: int = 16, seed: int = 1):
    """(inputs, targets) token ids of shape (batch, seq_len): next-token prediction."""
    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, VOCAB, (batch, seq_len + 1), generator=generator)
    return tokens[:, :-1].to(device), tokens[:, 1:].to(device)


def loss_fn(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy over every position."""
    return nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())


def reference_grads(model: nn.Module, inputs: torch.Tensor, targets: torch.Tensor) -> dict[str, torch.Tensor]:
    """Gradients of one process on the whole batch: what every pattern must reproduce."""
    single = copy.deepcopy(model)
    loss_fn(single(inputs), targets).backward()
    return {name: p.grad for name, p in single.named_parameters()}
