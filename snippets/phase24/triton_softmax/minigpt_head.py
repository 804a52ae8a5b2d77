"""Phase 24's lab 03: the grammar MiniGPT with the Triton softmax after its LM head."""

import torch

from snippets.minigpt.tokenizer import decode
from snippets.minigpt.torch_model import load_pretrained, sample_batch
from snippets.phase24.theory04.head_softmax import next_token_probs
from snippets.phase24.triton_softmax import kernels

DEVICES = ("cpu", "cuda")


def compare(device: str, batch: int = 8, seq_len: int = 32) -> dict:
    """Next-token and all-position probabilities by torch.softmax and by the Triton kernel."""
    model, idx = load_pretrained().to(device), sample_batch(batch, seq_len, seed=0).to(device)
    with torch.no_grad():
        builtin = next_token_probs(model, idx)
        ours = next_token_probs(model, idx, softmax=kernels.softmax)
        logits = model(idx)  # (batch, seq_len, 600)
        every_position = (kernels.softmax(logits) - torch.softmax(logits, dim=-1)).abs().max().item()
    return {
        "shape": tuple(ours.shape),
        "max_abs_difference": (ours - builtin).abs().max().item(),
        "every_position_shape": tuple(logits.shape),
        "every_position_difference": every_position,
        "same_argmax": (ours.argmax(-1) == builtin.argmax(-1)).sum().item(),
        "next_tokens": [decode([i]) for i in ours.argmax(-1).tolist()],
    }


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    result = compare(device)
    print(f"next-token probabilities {result['shape']}: max |Triton - torch.softmax| = "
          f"{result['max_abs_difference']:.1e}, same argmax in {result['same_argmax']} of {result['shape'][0]} rows")
    print(f"every position {result['every_position_shape']}: max |Triton - torch.softmax| = "
          f"{result['every_position_difference']:.1e}")
    print("predicted next tokens:", " | ".join(result["next_tokens"]))


def claim_same_probabilities_and_tokens(main):
    """#lab-03: the probabilities agree to float32 rounding and every predicted token is the same."""
    return (main.number("next-token probabilities", 2) < 1e-6 and main.number("every position", 3) < 1e-6
            and "same argmax in 8 of 8 rows" in main)
