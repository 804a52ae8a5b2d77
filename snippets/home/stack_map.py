"""The stack the course opens, drawn from one real call, linear(x, W, b): what each layer shows of it,
autograd and torch.compile beside, and the course's pages pinned to the layer each one opens."""

import re

import torch
import torch.nn.functional as F

from engine import page_url
from snippets import figure
from snippets.phase25.lab00.dispatch_log import dispatched_ops, function_calls
from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory01.dispatch_table import call_key_set, names, table

ISOLATE = True  # torch.compile
TIMEOUT = 300
LAYERS = ("python", "keys", "aten", "kernels", "device")
BESIDE = ("autograd", "compile")
PAGES = {  # layer -> the pages that open it: (path under docs/, phase or week, kind, number)
    "python": [("phase-24/theory/04-pytorch-as-substrate.md", 24, "theory", "04"),
               ("phase-25/theory/00-motivation.md", 25, "theory", "00")],
    "keys": [("phase-25/theory/01-dispatcher-and-aten.md", 25, "theory", "01"),
             ("phase-25/lab/00-dispatcher-trace.md", 25, "lab", "00"), ("week-09/index.md", 9, "week", "")],
    "aten": [("phase-25/lab/02-custom-op.md", 25, "lab", "02")],
    "kernels": [("phase-24/theory/02-triton-primer.md", 24, "theory", "02"),
                ("phase-24/theory/03-triton-softmax.md", 24, "theory", "03")],
    "device": [("phase-24/lab/00-hello-cuda.md", 24, "lab", "00"),
               ("phase-25/lab/03-distributed-survey.md", 25, "part", "2"),
               ("phase-25/lab/03-running-torchrun.md", 25, "part", "3")],
    "autograd": [("phase-25/theory/02-autograd-engine.md", 25, "theory", "02"),
                 ("phase-25/lab/01-autograd-by-hand.md", 25, "lab", "01")],
    "compile": [("phase-25/theory/03-compile-and-distributed.md", 25, "theory", "03"),
                ("phase-25/lab/03-compile-and-inductor.md", 25, "part", "1")],
}
WORDS = {
    "en": {"python": "Python: torch functions", "keys": "dispatcher: dispatch keys", "aten": "ATen operators",
           "kernels": "kernels: BLAS, Triton, C++", "device": "device", "autograd": "autograd",
           "compile": "torch.compile",
           "title": "The stack of linear(x, W, b), from Python to the device, with the pages that open each layer",
           "theory": "Phase {phase}, theory {n}", "lab": "Phase {phase}, lab {n}", "week": "Week {phase}",
           "part": "Phase {phase}, lab 03, part {n}",
           "short": {"theory": "{phase}·T{n}", "lab": "{phase}·L{n}", "week": "W{phase}", "part": "{phase}·L03.{n}"},
           "layer": "{layer}: {shows} ({pages})", "graph": "{n} graph: {ops}", "grad": "records {node}"},
    "es": {"python": "Python: funciones de torch", "keys": "dispatcher: claves de dispatch",
           "aten": "operadores de ATen", "kernels": "kernels: BLAS, Triton, C++", "device": "dispositivo",
           "autograd": "autograd", "compile": "torch.compile",
           "title": "La pila de linear(x, W, b), de Python al dispositivo, con las páginas que abren cada capa",
           "theory": "Fase {phase}, teoría {n}", "lab": "Fase {phase}, lab {n}", "week": "Semana {phase}",
           "part": "Fase {phase}, lab 03, parte {n}",
           "short": {"theory": "{phase}·T{n}", "lab": "{phase}·L{n}", "week": "S{phase}", "part": "{phase}·L03.{n}"},
           "layer": "{layer}: {shows} ({pages})", "graph": "{n} grafo: {ops}", "grad": "registra {node}"},
}
LEFT, MAIN, SIDE, BOX, GAP = 8, 380, 170, 62, 14  # the main column, the side column, a layer's height


def layers() -> dict[str, str]:
    """What each layer shows of one linear(x, W, b) on CPU, read from the run (compile: the graph Dynamo captures)."""
    x, W, b = make_inputs()
    y = F.linear(x, W, b)
    cpu = table("aten::addmm")["CPU"].where.split("/")[-1].split(":")[0]
    blas = re.search(r"BLAS_INFO=(\w+)", torch.__config__.show()).group(1)
    graphs = []

    def capture(gm, example_inputs):
        graphs.append([getattr(n.target, "__name__", str(n.target)) for n in gm.graph.nodes if n.op == "call_function"])
        return gm.forward

    torch._dynamo.reset()
    torch.compile(F.linear, backend=capture)(x, W, b)
    return {"python": ", ".join(function_calls(F.linear, x, W, b)),
            "keys": " > ".join(names(call_key_set(b, x, W.t()))[::-1]),
            "aten": ", ".join(dispatched_ops(F.linear, x, W, b)),
            "kernels": f"{cpu} > {blas} sgemm", "device": str(y.device),
            "autograd": type(y.grad_fn).__name__, "compile": (len(graphs), ", ".join(graphs[0]))}


def shows(key: str, data: dict, lang: str) -> str:
    words = WORDS[lang]
    if key == "compile":
        return words["graph"].format(n=data["compile"][0], ops=data["compile"][1])
    return words["grad"].format(node=data[key]) if key == "autograd" else data[key]


def short(page: tuple, lang: str) -> str:
    _, phase, kind, n = page
    return WORDS[lang]["short"][kind].format(phase=phase, n=n)


def box(key: str, data: dict, lang: str, x: float, y: float, width: float, height: float) -> list[str]:
    """One layer: its name, what the call shows there, and its pages."""
    words = WORDS[lang]
    parts = [figure.rect(x, y, width, height, figure.GREEN if key in BESIDE else figure.BLUE, 0.12),
             figure.text(x + 8, y + 17, words[key], bold=True),
             figure.text(x + 8, y + 35, shows(key, data, lang), size=11)]
    chips = "  ".join(short(page, lang) for page in PAGES[key])
    parts.append(figure.text(x + 8, y + 53, chips, size=11,
                             tip=" / ".join(words[page[2]].format(phase=page[1], n=page[3]) for page in PAGES[key])))
    return parts


def describe(data: dict, lang: str, linked: bool) -> str:
    words = WORDS[lang]

    def page_name(page):
        name = words[page[2]].format(phase=page[1], n=page[3])
        return f"[{name}]({page_url(page[0])})" if linked else name  # the built page: an output's links stay as written
    return "; ".join(words["layer"].format(layer=words[key], shows=shows(key, data, lang),
                                           pages=" / ".join(page_name(p) for p in PAGES[key]))
                     for key in LAYERS + BESIDE)


def draw(data: dict, lang: str) -> tuple[str, str]:
    """The layers top to bottom, an arrow between each two; autograd and compile in a column beside."""
    body = []
    for i, key in enumerate(LAYERS):
        y = 8 + i * (BOX + GAP)
        body += box(key, data, lang, LEFT, y, MAIN, BOX)
        if i < len(LAYERS) - 1:
            body.append(figure.arrow(LEFT + MAIN / 2, y + BOX, LEFT + MAIN / 2, y + BOX + GAP, "stack-map", lang))
    side = LEFT + MAIN + 16
    for i, key in enumerate(BESIDE):  # autograd beside the dispatcher, compile beside Python and ATen
        y = 8 + (1 + i) * (BOX + GAP)
        body += box(key, data, lang, side, y, SIDE, BOX)
    height = 8 + len(LAYERS) * (BOX + GAP)
    title = WORDS[lang]["title"]
    return (figure.svg(side + SIDE + 8, height, body, title, describe(data, lang, False), "stack-map", lang,
                       described=True), describe(data, lang, True) + ".")


def main():
    data = layers()
    print(figure.in_languages("stack-map", lambda lang: draw(data, lang)))


def claim_one_call(main):
    """#stack-map: the call is linear in Python, t and addmm in ATen, through AutogradCPU, ADInplaceOrView, BackendSelect and CPU, on the CPU; autograd records AddmmBackward0 and Dynamo captures one graph of linear."""
    desc = main.desc
    return ("Python: torch functions: linear (" in desc
            and "dispatcher: dispatch keys: AutogradCPU &gt; ADInplaceOrView &gt; BackendSelect &gt; CPU (" in desc
            and "ATen operators: aten.t.default, aten.addmm.default (" in desc and "device: cpu (" in desc
            and "autograd: records AddmmBackward0 (" in desc and "torch.compile: 1 graph: linear (" in desc)
