"""One bug at a time in the PyTorch port, checked against the NumPy reference as the correct port is."""

import numpy as np
import torch
from torch import nn

from snippets.minigpt import numpy_model
from snippets.minigpt.torch_model import GrammarMiniGPT, load_pretrained, sample_batch


def transposed_weight(model: GrammarMiniGPT) -> None:
    """Block 0's attention output weight loaded transposed: NumPy's x @ W layout read as nn.Linear's."""
    proj = model.blocks[0].attn.proj
    proj.weight.data = proj.weight.data.T.contiguous()


def missing_layer_norm(model: GrammarMiniGPT) -> None:
    """The final layer norm left out."""
    model.ln_f = nn.Identity()


def positions_off_by_one(model: GrammarMiniGPT) -> None:
    """Each position gets the next position's embedding."""
    model.pos_emb.weight.data = model.pos_emb.weight.data.roll(-1, dims=0)


BUGS = {"none: the port above": None, "attention weight transposed": transposed_weight,
        "final layer norm missing": missing_layer_norm, "positions off by one": positions_off_by_one}


def errors(batch: int = 2, seq_len: int = 32, seed: int = 0) -> dict[str, tuple[float, bool]]:
    """For each bug: the largest logit error against the reference, and whether np.allclose passes."""
    idx = sample_batch(batch, seq_len, seed)
    reference = numpy_model.load_pretrained()(idx.numpy())
    results = {}
    for name, bug in BUGS.items():
        model = load_pretrained()
        if bug is not None:
            bug(model)
        with torch.no_grad():
            logits = model(idx).numpy()
        results[name] = (float(np.abs(logits - reference).max()),
                         bool(np.allclose(reference, logits, atol=1e-5, rtol=1e-5)))
    return results


def main():
    print(f"{'bug':<28} {'max abs error, logits':>21}  np.allclose")
    for name, (error, close) in errors().items():
        print(f"{name:<28} {error:21.3e}  {close}")


def claim_bugs_miss_by_orders_of_magnitude(main):
    """#equivalence-cpu: each port with a bug fails the check, its error six orders of magnitude or more above the correct port's."""
    rows = {line[:28].strip(): line.split()[-2:] for line in main.lines[1:] if line.strip()}
    correct = float(rows.pop("none: the port above")[0])
    return len(rows) == 3 and all(close == "False" and float(error) >= 1e6 * correct for error, close in rows.values())
