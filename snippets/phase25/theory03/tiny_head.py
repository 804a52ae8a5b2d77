"""TinyHead, the model every stage of torch.compile is shown on: the grammar MiniGPT's LM head, then softmax."""

import torch
from torch import nn

SEED = 42
D_MODEL, VOCAB = 64, 600


class TinyHead(nn.Module):
    """Linear(64, 600) followed by a softmax over the 600-token vocabulary."""

    def __init__(self, d: int = D_MODEL, vocab: int = VOCAB):
        super().__init__()
        self.fc = nn.Linear(d, vocab)

    def forward(self, x):
        return torch.softmax(self.fc(x), dim=-1)


def model_and_input(batch: int = 2, device: str = "cpu") -> tuple[TinyHead, torch.Tensor]:
    """The lab's set-up: seed 42, then the model, then x of shape (batch, 64), in eval mode."""
    torch.manual_seed(SEED)
    model = TinyHead().eval()
    x = torch.randn(batch, D_MODEL)
    return model.to(device), x.to(device)
