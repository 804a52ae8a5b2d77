"""Where a custom kernel slots into the MiniGPT: the softmax after the LM head, one argument."""

import torch

from snippets.minigpt.tokenizer import decode
from snippets.minigpt.torch_model import load_pretrained, sample_batch


def next_token_probs(model, idx: torch.Tensor, softmax=torch.softmax) -> torch.Tensor:
    """(B, 600) probabilities of the token after each row: LM head on the last position, then softmax."""
    logits = model.lm_head(model.features(idx)[:, -1])  # nn.Linear(64, 600): a GEMM from the BLAS library
    return softmax(logits, dim=-1)  # the one call a custom kernel replaces


def softmax_by_hand(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """The NumPy reference's softmax written with torch ops: a stand-in for a custom kernel."""
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)


def main():
    model, idx = load_pretrained(), sample_batch(2, 16, seed=0)
    with torch.no_grad():
        builtin = next_token_probs(model, idx)
        swapped = next_token_probs(model, idx, softmax=softmax_by_hand)
    print("probabilities:", tuple(builtin.shape), builtin.dtype, "rows sum to", builtin.sum(-1).tolist())
    print("max abs difference, swapped softmax vs torch.softmax:", f"{(builtin - swapped).abs().max().item():.1e}")
    print("same next token:", [decode([i]) for i in builtin.argmax(-1).tolist()],
          [decode([i]) for i in swapped.argmax(-1).tolist()])


def claim_agrees_to_float32_rounding(main):
    """#custom-kernel: the NumPy reference's softmax written with torch ops agrees with torch.softmax to float32 rounding."""
    builtin, swapped = main.line("same next token").split(":", 1)[1].strip().split("] [")
    return main.number("max abs difference") < 1e-6 and builtin + "]" == "[" + swapped
