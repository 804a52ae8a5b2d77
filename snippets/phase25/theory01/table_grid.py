"""Dispatch tables side by side: operators by keys, each cell what the table holds, the call's key set
(linear's addmm, from its real tensors and thread) highlighted and the cells its walk visits outlined."""

import torch

from snippets import figure
from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory01.dispatch_table import call_key_set, names, table, walk

OPS = ("aten::addmm", "aten::add.Tensor", "aten::add_.Tensor", "aten::t", "aten::linear", "aten::empty.memory_format")
KEYS = ("AutocastCPU", "AutogradCPU", "ADInplaceOrView", "BackendSelect", "CPU", "Meta", "CUDA")
LETTERS = {"kernel": "K", "autograd kernel": "A", "math kernel": "M", "default backend kernel": "D",
           "backend fallback": "B", "fallthrough": "↓", None: "·"}
LEFT, TOP, CELL, HIGH = 208, 118, 36, 28  # the operators' column, the keys' headers, a cell's width and height
WORDS = {
    "en": {"title": "Dispatch tables of six operators for seven keys; linear's addmm call: {keys}",
           "legend": {"K": "kernel", "A": "autograd kernel", "M": "math kernel (decomposes)",
                      "D": "default backend kernel", "B": "backend fallback", "↓": "fallthrough", "·": "nothing"},
           "call": "shaded: the key set of linear's addmm call; outlined: the cells its walk visits",
           "row": "{op}: {cells}", "walk": "the addmm call's key set is {keys}; its walk visits {visited}"},
    "es": {"title": "Tablas de dispatch de seis operadores para siete claves; llamada a addmm de linear: {keys}",
           "legend": {"K": "kernel", "A": "kernel de autograd", "M": "kernel math (se descompone)",
                      "D": "kernel de backend por defecto", "B": "fallback de backend", "↓": "fallthrough",
                      "·": "nada"},
           "call": "sombreado: el conjunto de claves de la llamada a addmm de linear; con borde: las celdas que visita",
           "row": "{op}: {cells}", "walk": "el conjunto de claves de la llamada a addmm es {keys}; visita {visited}"},
}


def grid() -> dict:
    """Each operator's letter per key, the call's key set and the (operator, key) cells the call visits."""
    x, W, b = make_inputs()
    keys = call_key_set(b, x, W.t())
    cells = {}
    for op in OPS:
        rows = table(op)
        cells[op] = {key: LETTERS["fallthrough" if key in rows and rows[key].fallthrough
                                  else rows[key].kind if key in rows else None] for key in KEYS}
    return {"cells": cells, "keys": [k for k in names(keys)[::-1] if k in KEYS],
            "visited": [row.key for row in walk("aten::addmm", keys)]}


def describe(data: dict, lang: str) -> str:
    words = WORDS[lang]
    rows = [words["row"].format(op=op, cells=", ".join(f"{key} {words['legend'][letter]}"
                                                       for key, letter in row.items() if letter != "·"))
            for op, row in data["cells"].items()]
    visited = " > ".join(data["visited"])
    return "; ".join(rows) + "; " + words["walk"].format(keys=", ".join(data["keys"]), visited=visited)


def draw(data: dict, lang: str) -> tuple[str, str]:
    words = WORDS[lang]
    width = LEFT + CELL * len(KEYS) + 8
    body = []
    for j, key in enumerate(KEYS):
        x = LEFT + CELL * j
        if key in data["keys"]:
            body.append(figure.rect(x, TOP - 112, CELL, 112 + HIGH * len(OPS), opacity=0.12))
        body.append(f'<text transform="translate({x + CELL / 2 + 4:.0f},{TOP - 6}) rotate(-60)" font-size="11" '
                    f'stroke="none">{key}</text>')
    for i, op in enumerate(data["cells"]):
        y = TOP + HIGH * i
        body.append(figure.text(LEFT - 6, y + 19, op.removeprefix("aten::"), anchor="end"))
        for j, key in enumerate(KEYS):
            x, letter = LEFT + CELL * j, data["cells"][op][key]
            if op == "aten::addmm" and key in data["visited"]:
                body.append(f'<rect x="{x + 3}" y="{y + 2}" width="{CELL - 6}" height="{HIGH - 4}" rx="4" '
                            'fill="none" stroke-width="2"/>')
            body.append(figure.text(x + CELL / 2, y + 19, letter, anchor="middle", tip=words["legend"][letter]))
    y = TOP + HIGH * len(OPS) + 22
    body.append(figure.text(4, y, words["call"], size=11))
    for n, (letter, meaning) in enumerate(words["legend"].items()):
        body.append(figure.text(4 + (n % 2) * 220, y + 20 + 17 * (n // 2), f"{letter} {meaning}", size=11))
    height = y + 20 + 17 * ((len(words["legend"]) + 1) // 2)
    width = max(width, len(words["call"]) * 6.6 + 8)
    title = words["title"].format(keys=", ".join(data["keys"]))
    desc = describe(data, lang)
    return figure.svg(width, height, body, title, desc, "table-grid", lang, described=True), desc + "."


def main():
    data = grid()
    print(figure.in_languages("table-grid", lambda lang: draw(data, lang)))


def claim_grid(main):
    """#special-keys: the call's key set is AutogradCPU, ADInplaceOrView, BackendSelect, CPU and addmm's walk visits all four, falling through the middle two; t and add_ have kernels at ADInplaceOrView, linear at AutocastCPU, empty at BackendSelect, and linear's autograd cell is a math kernel."""
    desc = main.desc
    rows = dict(row.split(": ", 1) for row in desc.split("; ")[:6])  # a row per operator
    return ("the addmm call's key set is AutogradCPU, ADInplaceOrView, BackendSelect, CPU; "
            "its walk visits AutogradCPU &gt; ADInplaceOrView &gt; BackendSelect &gt; CPU" in desc
            and "ADInplaceOrView kernel" in rows["aten::t"] and "ADInplaceOrView kernel" in rows["aten::add_.Tensor"]
            and "ADInplaceOrView fallthrough" in rows["aten::addmm"] and "AutocastCPU kernel" in rows["aten::linear"]
            and "BackendSelect kernel" in rows["aten::empty.memory_format"]
            and "AutogradCPU math kernel" in rows["aten::linear"])
