"""The model every pattern trains (the grammar MiniGPT), its batch, its loss, its reference gradients."""

from __future__ import annotations

import copy

import torch
from torch import nn

from snippets.minigpt.config import CONFIG
from snippets.minigpt.torch_model import GrammarMiniGPT, load_pretrained, sample_batch

D_MODEL = CONFIG.d_model
SEQ_LEN = 16


def build_model(device: torch.device | str = "cpu") -> GrammarMiniGPT:
    """The shipped MiniGPT, in training mode: the same weights on every rank."""
    return load_pretrained().train().to(device)


def make_batch(batch: int, device: torch.device | str = "cpu", seq_len: int = SEQ_LEN, seed: int = 1):
    """(inputs, targets) of shape (batch, seq_len) drawn from the grammar: next-token prediction.

    Both contiguous: a pipeline stage (torch 2.11) rejects micro-batches whose strides differ from
    the ones it inferred, and a slice of the token rows has a stride of seq_len + 1."""
    tokens = sample_batch(batch, seq_len + 1, seed).to(device)
    return tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()


def loss_fn(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy over every position."""
    return nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())


def reference_grads(model: nn.Module, inputs: torch.Tensor, targets: torch.Tensor) -> dict[str, torch.Tensor]:
    """Gradients of one process on the whole batch: what every pattern must reproduce."""
    single = copy.deepcopy(model)
    loss_fn(single(inputs), targets).backward()
    return {name: p.grad for name, p in single.named_parameters()}
