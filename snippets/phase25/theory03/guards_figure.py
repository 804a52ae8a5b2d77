"""Guards, hit or miss, recompile: each call of the compiled tiny head against the graphs kept so far,
drawn from the real run (default dynamic), one row per call and one column per graph."""

import re

from snippets import figure
from snippets.phase25.theory03.recompile import BATCHES, compiles_per_call
from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True
TIMEOUT = 300
CALL, COLUMN, ROW, TOP = 120, 150, 46, 44  # the calls' column, a graph's column, a call's row, the header
WORDS = {
    "en": {"call": "call", "batch": "x ({batch}, 64)", "graph": "graph {n}: x {shape}",
           "hit": "hit: runs", "miss": "guard fails", "new": "compiled", "none": "",
           "title": "torch.compile(model): calls with batches {batches} against the graphs kept so far",
           "row": "call with batch {batch}: {cells}", "cell": "graph {n} {what}",
           "failed": "{what} ({guard})"},
    "es": {"call": "llamada", "batch": "x ({batch}, 64)", "graph": "grafo {n}: x {shape}",
           "hit": "acierto: se ejecuta", "miss": "falla un guard", "new": "compilado", "none": "",
           "title": "El modelo compilado: llamadas con batches {batches} frente a los grafos guardados",
           "row": "llamada con batch {batch}: {cells}", "cell": "grafo {n} {what}",
           "failed": "{what} ({guard})"},
}
# The guard failures torch reports in English, as the Spanish drawing says them; any other is shown as torch wrote it.
SIZE_MISMATCH = re.compile(r"tensor '(\w+)' size mismatch at index (\d+)\. expected (\d+), actual (\d+)")
GUARDS = {"es": r"el tamaño de '\1' no coincide en el índice \2. Se esperaba \3, hay \4"}


def said(guard: str, lang: str) -> str:
    """A guard failure in `lang`."""
    return SIZE_MISMATCH.sub(GUARDS[lang], guard) if lang in GUARDS else guard


def calls() -> dict:
    """Per call: its batch, and per graph kept by then: 'new', 'hit' or the guard that failed for it."""
    model, _ = model_and_input()
    rows, shapes = [], []
    for batch, new_graphs, reasons, ran in compiles_per_call(model, None):
        failed = dict(reason.split(": ", 1) for reason in reasons)  # '0/1' -> the guard it failed
        cells = []
        for n in range(len(shapes) + len(new_graphs)):
            if n >= len(shapes):
                cells.append(("new", ""))
            elif f"0/{n}" in failed:
                cells.append(("miss", failed[f"0/{n}"]))
            elif n == ran:
                cells.append(("hit", ""))
            else:
                cells.append(("none", ""))  # no failure logged: a newer graph's guards passed first
        shapes += new_graphs
        rows.append({"batch": batch, "cells": cells, "ran": ran})
    return {"rows": rows, "shapes": shapes}


def describe(data: dict, lang: str) -> str:
    words = WORDS[lang]
    rows = []
    for row in data["rows"]:
        cells = [words["cell"].format(n=n, what=words["failed"].format(what=words[kind], guard=said(guard, lang))
                                      if guard else words[kind]) for n, (kind, guard) in enumerate(row["cells"]) if kind != "none"]
        rows.append(words["row"].format(batch=row["batch"], cells=", ".join(cells)))
    return "; ".join(rows)


def draw(data: dict, lang: str) -> tuple[str, str]:
    words = WORDS[lang]
    colours = {"new": figure.GREEN, "hit": figure.BLUE, "miss": figure.RED}
    width = CALL + COLUMN * len(data["shapes"]) + 8
    body = [figure.text(4, 18, words["call"], bold=True)]
    body += [figure.text(CALL + COLUMN * n + 4, 18, words["graph"].format(n=n, shape=shape), size=11)
             for n, shape in enumerate(data["shapes"])]
    for i, row in enumerate(data["rows"]):
        y = TOP + ROW * i
        body.append(figure.text(4, y + 22, words["batch"].format(batch=row["batch"])))
        for n, (kind, guard) in enumerate(row["cells"]):
            if kind == "none":
                continue
            guard = said(guard, lang)
            x = CALL + COLUMN * n
            body += [figure.rect(x, y, COLUMN - 8, ROW - 8, colours[kind], 0.2, tip=guard or None),
                     figure.text(x + 6, y + 16, words[kind], size=11, bold=True)]
            if guard:
                body.append(figure.text(x + 6, y + 31, guard.split(". ")[-1],
                                        size=11, tip=guard))
    height = TOP + ROW * len(data["rows"])
    title = words["title"].format(batches=", ".join(str(b) for b in BATCHES))
    desc = describe(data, lang)
    return figure.svg(width, height, body, title, desc, "guards", lang, described=True), desc + "."


def main():
    data = calls()
    print(figure.in_languages("guards", lambda lang: draw(data, lang)))


def claim_hit_miss(main):
    """#recompilation: batch 3 fails graph 0's size guard and compiles graph 1, batch 5 hits graph 1 with no failure logged for graph 0, batch 1 fails both and compiles graph 2."""
    desc = main.desc
    rows = desc.split("; ")
    return (rows[0] == "call with batch 2: graph 0 compiled"
            and rows[1].startswith("call with batch 3: graph 0 guard fails (tensor 'x' size mismatch at index 0. expected 2, actual 3), graph 1 compiled")
            and rows[2] == "call with batch 5: graph 1 hit: runs"
            and rows[3].startswith("call with batch 1: graph 0 guard fails (") and "graph 1 guard fails (2 &lt;= x.size()[0])" in rows[3]
            and rows[3].endswith("graph 2 compiled"))
