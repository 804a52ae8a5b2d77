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


def guard_failures(reasons: list[str]) -> list[str]:
    """The failed guards listed in Dynamo's recompile messages, one per line, as 'graph: what failed'."""
    return [line.split("  #")[0].strip(" -") for reason in reasons for line in reason.splitlines()[2:]]


def compiles_per_call(model, dynamic: bool | None) -> list[tuple[int, list[str], list[str], int]]:
    """For each batch size: the graphs compiled by that call (x's shape in each), the recompile reasons
    and the number of the graph that ran (its order of compilation, from 0)."""
    torch._dynamo.reset()
    shapes: list[str] = []
    ran: list[int] = []

    def recording_backend(gm, example_inputs):
        number = len(shapes)
        shapes.append(input_shape(gm))

        def run(*args):
            ran.append(number)
            return gm.forward(*args)
        return run

    compiled = torch.compile(model, backend=recording_backend, dynamic=dynamic)
    rows = []
    for batch in BATCHES:
        before = len(shapes)
        with captured_logs("recompiles") as reasons:
            compiled(torch.randn(batch, 64))
        rows.append((batch, shapes[before:], guard_failures(reasons), ran[-1]))
    return rows


def main():
    model, _ = model_and_input()
    for dynamic in (None, False, True):
        print(f"torch.compile(model, dynamic={dynamic}):")
        for batch, new_graphs, reasons, _ in compiles_per_call(model, dynamic):
            compiled = f"compiled a graph for x of shape {new_graphs[0]}" if new_graphs else "reused a graph"
            print(f"  x of batch {batch}: {compiled}")
            for reason in reasons:
                print(f"      guard failure {reason}")
        print()


def claim_automatic_dynamic(main):
    """#recompilation: by default the first graph is static, [2, 64]; batch 3 fails its size guard and recompiles as [s77, 64]; batch 5 reuses that graph."""
    default = main.between("dynamic=None", "dynamic=False")
    return (default.line("batch 2:").endswith("[2, 64]") and default.line("batch 3:").endswith("[s77, 64]")
            and default.between("batch 3:", "batch 5:").text.strip().endswith("size mismatch at index 0. expected 2, actual 3")
            and default.line("batch 5:").endswith("reused a graph"))


def claim_static_every_size(main):
    """#recompilation: with dynamic=False every new batch size is a new static graph, and each recompile lists every earlier graph's failed guard (0/0, 0/1, 0/2)."""
    static = main.between("dynamic=False", "dynamic=True")
    shapes = [line.split("shape ")[-1] for line in static.lines if "compiled a graph" in line]
    failures = [line.split(":")[0].split()[-1] for line in static.between("batch 1:").lines if "guard failure" in line]
    return shapes == ["[2, 64]", "[3, 64]", "[5, 64]", "[1, 64]"] and failures == ["0/2", "0/1", "0/0"]


def claim_symbolic_from_start(main):
    """#recompilation: dynamic=True is symbolic from the first call."""
    dynamic = main.between("dynamic=True")
    return dynamic.line("batch 2:").endswith("[s77, 64]") and dynamic.line("batch 3:").endswith("reused a graph")


def claim_batch_one_recompiles(main):
    """#recompilation: batch 1 always recompiles; a symbolic size is assumed to be at least 2 (the guard 2 <= x.size()[0])."""
    return (main.count("x of batch 1: compiled a graph for x of shape [1, 64]") == 3
            and main.count("guard failure 0/1: 2 <= x.size()[0]") == 1 and main.count("guard failure 0/0: 2 <= x.size()[0]") == 1)
