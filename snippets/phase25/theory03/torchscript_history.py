"""TorchScript, the graph capture torch.compile replaced: still importable, and deprecated."""

import warnings

import torch

from snippets.phase25.theory03.readable import tidy
from snippets.phase25.theory03.tiny_head import model_and_input


def script(model) -> tuple[str, list[str]]:
    """TorchScript's IR of the model's forward, and the warnings torch.jit.script raises."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scripted = torch.jit.script(model)
    messages = [f"{w.category.__name__}: {w.message}" for w in caught]
    return tidy(str(scripted.graph)).strip(), messages


def main():
    model, _ = model_and_input()
    graph, messages = script(model)
    for message in messages:
        print(message)
    print()
    print(graph)
