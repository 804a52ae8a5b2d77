"""A shape change fails a guard and recompiles; after one change Dynamo makes the batch size symbolic."""

import torch

from snippets.phase25.theory03.readable import captured_logs
from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True
BATCHES = (2, 3, 5, 1)


def input_shape(gm: torch.fx.GraphModule) -> str:
    """The shape Dynamo recorded for x, the graph's last input: sizes, or symbols such as s77."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    return str(list(placeholders[-1].meta["example_value"].shape))


def compiles_per_call(model, dynamic: bool | None) -> list[tuple[int, str, list[str]]]:
    """For each batch size: the graphs compiled by that call (x's shape in each) and the recompile reasons."""
    torch._dynamo.reset()
    shapes: list[str] = []

    def recording_backend(gm, example_inputs):
        shapes.append(input_shape(gm))
        return gm.forward

    compiled = torch.compile(model, backend=recording_backend, dynamic=dynamic)
    rows = []
    for batch in BATCHES:
        before = len(shapes)
        with captured_logs("recompiles") as reasons:
            compiled(torch.randn(batch, 64))
        failures = [line.split("  #")[0].strip(" -") for r in reasons for line in r.splitlines()[2:]]
        rows.append((batch, shapes[before:], failures))
    return rows


def main():
    model, _ = model_and_input()
    for dynamic in (None, False, True):
        print(f"torch.compile(model, dynamic={dynamic}):")
        for batch, new_graphs, reasons in compiles_per_call(model, dynamic):
            compiled = f"compiled a graph for x of shape {new_graphs[0]}" if new_graphs else "reused a graph"
            print(f"  x of batch {batch}: {compiled}")
            for reason in reasons:
                print(f"      guard failure {reason}")
        print()
