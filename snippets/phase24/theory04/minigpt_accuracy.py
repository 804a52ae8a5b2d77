"""Prompt-prediction accuracy of the shipped MiniGPT, and a few prompts with its top guesses."""

import torch

from snippets.minigpt import numpy_model, shipped
from snippets.minigpt.evaluate import heldout_rows, prompt_accuracy, torch_predictions
from snippets.minigpt.grammar import allowed_next
from snippets.minigpt.tokenizer import decode, encode
from snippets.minigpt.torch_model import load_pretrained

PROMPTS = ("<bos>", "<bos> two old", "<bos> the old dog near those cats", "<bos> the old dogs near that cat",
           "<bos> my teacher reads a book")


def accuracies() -> dict[str, object]:
    """Accuracy of both implementations over every prefix of the held-out rows."""
    rows = heldout_rows()
    reference = numpy_model.load_pretrained()
    return {
        "held-out prompts (prefixes of 64 rows of 64 tokens)": sum(len(r) for r in rows),
        "accuracy, PyTorch port": prompt_accuracy(rows, torch_predictions(load_pretrained(), rows)),
        "accuracy, NumPy reference": prompt_accuracy(rows, reference(torch.tensor(rows).numpy()).argmax(-1).tolist()),
        "accuracy the training run measured": shipped.HELDOUT_ACCURACY,
    }


def next_word(prompt: str, k: int = 3) -> tuple[float, list[tuple[str, float, bool]]]:
    """Probability the model puts on words the grammar allows after `prompt`, and its k likeliest
    words as (word, probability, allowed)."""
    model = load_pretrained()
    with torch.no_grad():
        probs = torch.softmax(model(torch.tensor([encode(prompt)]))[0, -1], dim=-1)
    allowed = allowed_next(prompt.split())
    mass = float(probs[encode(" ".join(sorted(allowed)))].sum())
    top = torch.topk(probs, k)
    return mass, [(decode([i]), p, decode([i]) in allowed) for p, i in zip(top.values.tolist(), top.indices.tolist())]


def main():
    for name, value in accuracies().items():
        print(f"{name:52} {value:.4f}" if isinstance(value, float) else f"{name:52} {value}")
    print()
    print(f"{'prompt':34} {'allowed mass':>12}  likeliest next words")
    for prompt in PROMPTS:
        mass, top = next_word(prompt)
        guesses = ", ".join(f"{w} {p:.3f}{'' if ok else ' (not allowed)'}" for w, p, ok in top)
        print(f"{prompt:34} {mass:12.3f}  {guesses}")


def claim_same_accuracy(main):
    """#accuracy: both implementations score the same, and the training run measured the same number."""
    scores = {main.number(f"accuracy, {name}") for name in ("PyTorch port", "NumPy reference")} | {
        main.number("accuracy the training run measured")}
    return len(scores) == 1


def claim_prepositional_phrases(main):
    """#accuracy: after a subject followed by a prepositional phrase the model puts visibly less probability on allowed words than elsewhere."""
    masses = {line.split("  ")[0].strip(): float(line.split()[-7]) for line in main.between("allowed mass").lines if line.strip()}
    hard = [mass for prompt, mass in masses.items() if " near " in prompt]
    easy = [mass for prompt, mass in masses.items() if " near " not in prompt]
    return len(hard) == 2 and max(hard) < 0.9 < min(easy)
