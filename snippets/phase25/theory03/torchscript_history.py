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


def claim_deprecated_graph(main):
    """#torchscript: in torch 2.13 it still imports and says where to go; the IR is a graph (prim::GetAttr, aten::softmax) in TorchScript's own format."""
    return ("`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`" in main.lines[0]
            and "prim::GetAttr" in main and "aten::softmax" in main and main.count("graph(") == 1)
