"""Dynamo: the FX graph it captures from TinyHead's forward, handed to a backend that only looks at it."""

import torch

from snippets.phase25.theory03.readable import readable
from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True


def capture(model, x) -> list[torch.fx.GraphModule]:
    """Compile with a backend that keeps every graph Dynamo hands it and runs it unchanged."""
    graphs = []

    def inspecting_backend(gm: torch.fx.GraphModule, example_inputs):
        graphs.append(gm)
        return gm.forward  # no optimisation: run the captured graph as it is

    torch._dynamo.reset()
    torch.compile(model, backend=inspecting_backend)(x)
    return graphs


def node_table(gm: torch.fx.GraphModule) -> list[tuple[str, str, str]]:
    """(opcode, node name, output shape) for every node of the graph."""
    rows = []
    for node in gm.graph.nodes:
        value = node.meta.get("example_value")
        shape = tuple(value.shape) if isinstance(value, torch.Tensor) else ""
        rows.append((node.op, node.name, str(shape)))
    return rows


def main():
    model, x = model_and_input()
    graphs = capture(model, x)
    print(f"graphs captured: {len(graphs)}\n")
    print(readable(graphs[0]))
    print(f"\n{'opcode':14} {'node':40} shape")
    for op, name, shape in node_table(graphs[0]):
        print(f"{op:14} {name:40} {shape}")


def claim_one_graph_shape(main):
    """#fx-graph: one graph: three inputs, two calls, one output; the parameters are inputs (placeholder nodes lifted from self.fc), next to x."""
    table = main.between("opcode").lines
    opcodes = [line.split()[0] for line in table if line.strip()]
    placeholders = [line.split()[1] for line in table if line.startswith("placeholder")]
    return (main.number("graphs captured:") == 1 and opcodes == ["placeholder"] * 3 + ["call_function"] * 2 + ["output"]
            and [name for name in placeholders if "fc_parameters" in name] == placeholders[:2] and placeholders[2] == "l_x_")


def claim_python_level_calls(main):
    """#fx-graph: the two calls are recorded at the level of the Python API, torch._C._nn.linear and torch.softmax, not yet as ATen ops; each node carries the shape it produced (f32[2, 600]); a comment points back to tiny_head.py."""
    graph = main.between("class GraphModule", "opcode").text
    return ('linear: "f32[2, 600]" = torch._C._nn.linear(' in graph and 'softmax: "f32[2, 600]" = torch.softmax(' in graph
            and "aten" not in graph and "# File: snippets/phase25/theory03/tiny_head.py" in graph)
