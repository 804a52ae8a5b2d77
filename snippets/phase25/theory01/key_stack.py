"""The key stack of linear's addmm call, drawn (SVG) from the real key sets and table."""

import torch

from snippets.flowchart import Box, Link, svg
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


def diagram(layers: list[dict[str, str]]) -> str:
    """Top to bottom: the keys the call visits linked by what each does, the removed ones dashed."""
    boxes = [Box((layer["key"], f"from: {layer['from']}", layer["what"]), dashed=not layer["visited"])
             for layer in layers]
    links = [Link("falls through" if a["what"] == "fallthrough" else "redispatches") if a["visited"] and b["visited"]
             else Link(dashed=True) for a, b in zip(layers, layers[1:])]
    title = f"{OP}, linear(x, W, b): " + " > ".join(layer["key"] for layer in layers)
    desc = "; ".join(f"{layer['key']} ({layer['from']}): {layer['what']}" for layer in layers)
    return svg(boxes, links, title, desc, "key-stack")


def main():
    print(diagram(stack()))


def claim_stack(main):
    """#key-stack: the call carries five keys from highest to lowest: AutocastCPU (removed by the thread), AutogradCPU (its autograd kernel runs), ADInplaceOrView and BackendSelect (fallthroughs), CPU (the kernel that computes)."""
    title = main.line("<title>").split(": ", 1)[1]
    descr = main.line("<desc>")
    return (title == "AutocastCPU &gt; AutogradCPU &gt; ADInplaceOrView &gt; BackendSelect &gt; CPU</title>"
            and "AutocastCPU (tensors): removed: thread exclude set" in descr
            and "AutogradCPU (tensors): autograd kernel · VariableType_" in descr
            and "ADInplaceOrView (tensors and thread include set): fallthrough" in descr
            and "BackendSelect (thread include set): fallthrough" in descr
            and "CPU (tensors): kernel · RegisterCPU_" in descr
            and main.count(">redispatches</text>") == 1 and main.count(">falls through</text>") == 2)
