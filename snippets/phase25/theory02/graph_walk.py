"""Walk a live autograd graph from its root through next_functions: nodes, edges, leaf names."""

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Edge:
    """nodes[parent].next_functions[slot] is nodes[child]; None for an input needing no gradient."""

    parent: int
    slot: int
    child: int | None


def leaf_name(node, leaves: dict[str, torch.Tensor]) -> str | None:
    """The name of the leaf tensor an AccumulateGrad node writes into, if it is one of `leaves`."""
    variable = getattr(node, "variable", None)
    return next((name for name, tensor in leaves.items() if tensor is variable), None)


def label(node, leaves: dict[str, torch.Tensor]) -> str:
    """`AddmmBackward0`, or `AccumulateGrad(W)` for the node that fills W.grad."""
    name = leaf_name(node, leaves)
    return type(node).__name__ + (f"({name})" if name else "")


def walk(root) -> tuple[list, list[Edge]]:
    """Every node reachable from `root` once (depth-first, in next_functions order) and every edge."""
    nodes, edges, index = [], [], {}

    def visit(node):
        index[node] = len(nodes)
        nodes.append(node)
        for slot, (child, _) in enumerate(node.next_functions):
            if child is not None and child not in index:
                visit(child)
            edges.append(Edge(index[node], slot, None if child is None else index[child]))

    visit(root)
    return nodes, edges
