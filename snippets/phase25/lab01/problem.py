"""The lab's fixed problem: nn.Linear(64, 600), a batch of hidden states and next-token targets."""

import torch
from torch import nn

SEED = 0
BATCH = 2
D_MODEL, VOCAB = 64, 600


def head_problem(dtype: torch.dtype = torch.float32, seed: int = SEED, batch: int = BATCH):
    """x (batch, 64), W (600, 64), b (600,), target (batch,), drawn in float32 then cast to dtype.

    Drawing in float32 and casting keeps the float32 and float64 problems the same numbers
    (torch.randn in float64 draws different ones).
    """
    torch.manual_seed(seed)
    head = nn.Linear(D_MODEL, VOCAB)
    x = torch.randn(batch, D_MODEL)
    target = torch.randint(0, VOCAB, (batch,))
    return x.to(dtype), head.weight.detach().to(dtype), head.bias.detach().to(dtype), target
