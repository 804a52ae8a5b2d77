"""The key stack of linear's addmm call, drawn as a Mermaid diagram from the real key sets and table."""

import torch

from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory01.dispatch_table import by_priority, call_key_set, names, table, walk

C = torch._C
OP = "aten::addmm"


def stack() -> list[dict[str, str]]:
    """Every key the call's tensors carry or the thread adds, highest first: where it came from, what happens there."""
    x, W, b = make_inputs()
    tensors = (b, x, W.t())
    carried = set().union(*(names(C._dispatch_keys(t)) for t in tensors))
    included = set(names(C._dispatch_tls_local_include_set()))
    excluded = set(names(C._dispatch_tls_local_exclude_set()))
    keys = call_key_set(*tensors)
    rows, visited = table(OP), [row.key for row in walk(OP, keys)]
    layers = []
    for key in by_priority(carried | included):
        source = " and ".join(s for s, has in (("tensors", key in carried), ("thread include set", key in included)) if has)
        if key in excluded:
            what = "removed: thread exclude set"
        else:
            row = rows[key]
            what = ("fallthrough" if row.fallthrough else row.kind) + (f" · {row.where.split('/')[-1].split(':')[0]}"
                                                                       if not row.fallthrough else "")
        layers.append({"key": key, "from": source, "what": what, "visited": key in visited})
    return layers


def mermaid(layers: list[dict[str, str]]) -> str:
    """A top-to-bottom flowchart: the keys the call visits linked in order, the removed ones dashed."""
    lines = ["```mermaid", "flowchart TB",
             f"    accTitle: {OP}, linear(x, W, b): " + " > ".join(layer["key"] for layer in layers),
             "    accDescr: " + "; ".join(f"{l['key']} ({l['from']}): {l['what']}" for l in layers)]
    for i, layer in enumerate(layers):
        lines.append(f'    k{i}["{layer["key"]}<br/>from: {layer["from"]}<br/>{layer["what"]}"]')
    visited = [i for i, layer in enumerate(layers) if layer["visited"]]
    for a, b in zip(visited, visited[1:]):
        step = "falls through" if layers[a]["what"] == "fallthrough" else "redispatches"
        lines.append(f"    k{a} -->|{step}| k{b}")
    for i, layer in enumerate(layers):
        if not layer["visited"]:
            if i + 1 < len(layers):
                lines.append(f"    k{i} -.- k{i + 1}")
            lines.append(f"    class k{i} skipped")
    lines += ["    classDef skipped stroke-dasharray: 5 5", "```"]
    return "\n".join(lines)


def main():
    print(mermaid(stack()))


def claim_stack(main):
    """#key-stack: the call carries five keys from highest to lowest: AutocastCPU (removed by the thread), AutogradCPU (its autograd kernel runs), ADInplaceOrView and BackendSelect (fallthroughs), CPU (the kernel that computes)."""
    title = main.line("accTitle:").split(": ", 1)[1].split(": ", 1)[1]
    descr = main.line("accDescr:")
    return (title == "AutocastCPU > AutogradCPU > ADInplaceOrView > BackendSelect > CPU"
            and "AutocastCPU (tensors): removed: thread exclude set" in descr
            and "AutogradCPU (tensors): autograd kernel · VariableType_" in descr
            and "ADInplaceOrView (tensors and thread include set): fallthrough" in descr
            and "BackendSelect (thread include set): fallthrough" in descr
            and "CPU (tensors): kernel · RegisterCPU_" in descr
            and main.count("-->|redispatches|") == 1 and main.count("-->|falls through|") == 2)
