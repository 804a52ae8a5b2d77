"""The key stack of linear's addmm call, drawn (SVG) from the real key sets and table, in each language."""

import torch

from snippets import figure
from snippets.flowchart import Box, Link, svg
from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory01.dispatch_table import by_priority, call_key_set, names, table, walk

C = torch._C
OP = "aten::addmm"
WORDS = {
    "en": {"title": "{op}, linear(x, W, b): {keys}", "from": "from: {sources}", "and": " and ",
           "tensors": "tensors", "include": "thread include set", "removed": "removed: thread exclude set",
           "fallthrough": "falls through", "redispatch": "redispatches", "kinds": {}},
    "es": {"title": "Pila de claves de {op} en linear(x, W, b): {keys}", "from": "de: {sources}", "and": " e ",
           "tensors": "tensores", "include": "include set del hilo", "removed": "quitada: exclude set del hilo",
           "fallthrough": "pasa a la siguiente", "redispatch": "hace un redispatch",
           "kinds": {"autograd kernel": "kernel de autograd", "default backend kernel": "kernel de backend por defecto"}},
}


def stack() -> list[dict]:
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
        row = None if key in excluded else rows[key]
        sources = [s for s, has in (("tensors", key in carried), ("include", key in included)) if has]
        layers.append({"key": key, "sources": sources, "removed": row is None,
                       "fallthrough": row is not None and row.fallthrough, "kind": row and row.kind, "file": row and row.where.split("/")[-1].split(":")[0],
                       "visited": key in visited})
    return layers


def what(layer: dict, words: dict) -> str:
    """What happens at a key, in words: removed, fallthrough, or the kind of kernel and its file."""
    if layer["removed"]:
        return words["removed"]
    return "fallthrough" if layer["fallthrough"] else f"{words['kinds'].get(layer['kind'], layer['kind'])} · {layer['file']}"


def diagram(layers: list[dict], lang: str) -> str:
    """Top to bottom: the keys the call visits linked by what each does, the removed ones dashed."""
    words = WORDS[lang]
    sources = [words["and"].join(words[s] for s in layer["sources"]) for layer in layers]
    boxes = [Box((layer["key"], words["from"].format(sources=source), what(layer, words)), dashed=not layer["visited"])
             for layer, source in zip(layers, sources)]
    links = [Link(words["fallthrough"] if a["fallthrough"] else words["redispatch"]) if a["visited"] and b["visited"]
             else Link(dashed=True) for a, b in zip(layers, layers[1:])]
    title = words["title"].format(op=OP, keys=" > ".join(layer["key"] for layer in layers))
    desc = "; ".join(f"{layer['key']} ({source}): {what(layer, words)}" for layer, source in zip(layers, sources))
    return svg(boxes, links, title, desc, "key-stack", lang)


def main():
    layers = stack()
    print(figure.in_languages("key-stack", lambda lang: (diagram(layers, lang), "")))


def claim_stack(main):
    """#key-stack: the call carries five keys from highest to lowest: AutocastCPU (removed by the thread), AutogradCPU (its autograd kernel runs), ADInplaceOrView and BackendSelect (fallthroughs), CPU (the kernel that computes)."""
    title = main.text.split("<title>", 1)[1].split("</title>", 1)[0].split(": ", 1)[1]
    descr = main.desc
    return (title == "AutocastCPU &gt; AutogradCPU &gt; ADInplaceOrView &gt; BackendSelect &gt; CPU"
            and "AutocastCPU (tensors): removed: thread exclude set" in descr
            and "AutogradCPU (tensors): autograd kernel · VariableType_" in descr
            and "ADInplaceOrView (tensors and thread include set): fallthrough" in descr
            and "BackendSelect (thread include set): fallthrough" in descr
            and "CPU (tensors): kernel · RegisterCPU_" in descr
            and main.count(">redispatches</text>") == 1 and main.count(">falls through</text>") == 2)
