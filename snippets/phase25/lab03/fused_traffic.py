"""Eager against fused: the bytes each kernel of TinyHead's softmax reads and writes, one kernel per ATen op
(the graph after Inductor's decompositions, run op by op) against Inductor's one fused kernel."""

import re

from snippets import figure
from snippets.phase25.lab03.part_c_kernel import fused_softmax_kernel, kernel_arguments
from snippets.phase25.theory03.inductor_code import call_function, decomposed_graph
from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True
TIMEOUT = 300
SOFTMAX = ("amax", "sub", "exp", "sum", "div")  # softmax after the decompositions
ALLOCATION = re.compile(r"(buf\d+) = empty_strided_cpu\(\(([\d, ]+)\),.*torch\.float32\)")
LEFT, BAR, ROW = 200, 300, 30  # the kernels' column, the longest bar, a kernel's row
WORDS = {
    "en": {"title": "TinyHead's softmax on CPU: bytes each kernel reads and writes, eager op by op against fused",
           "eager": "eager: one kernel per op", "fused": "fused by Inductor", "read": "read", "write": "written",
           "total": "in all: {read:,} B read, {written:,} B written",
           "kernel": "{name}: reads {read:,} B, writes {written:,} B", "side": "{side}: {kernels}; {total}"},
    "es": {"title": "El softmax de TinyHead en CPU: bytes que lee y escribe cada kernel, eager op a op frente a fusionado",
           "eager": "eager: un kernel por op", "fused": "fusionado por Inductor", "read": "leídos",
           "write": "escritos", "total": "en total: {read} B leídos, {written} B escritos",
           "kernel": "{name}: lee {read} B, escribe {written} B", "side": "{side}: {kernels}; {total}"},
}


def eager_kernels(model, x) -> list[tuple[str, int, int]]:
    """(op, bytes read, bytes written) for each softmax op of the decomposed graph, from its tensors' sizes."""
    rows = []
    for node in decomposed_graph(model, x).graph.nodes:
        name = str(node.target).split(".")[1] if node.op == "call_function" else ""
        if name in SOFTMAX:
            inputs = [a.meta["val"] for a in node.args if hasattr(a, "meta")]
            out = node.meta["val"]
            rows.append((f"aten.{name}", sum(t.numel() * t.element_size() for t in inputs), out.numel() * out.element_size()))
    return rows


def fused_kernel(model, x) -> tuple[str, int, int]:
    """(kernel, bytes read, bytes written): the sizes of the buffers call() passes to its in_ and out_ pointers."""
    name, source, code = fused_softmax_kernel(model, x)
    sizes = {}
    for buffer, shape in ALLOCATION.findall(call_function(code)):
        numel = 1
        for n in shape.replace(" ", "").rstrip(",").split(","):
            numel *= int(n)
        sizes[buffer] = numel * 4
    pairs = kernel_arguments(name, source, code)
    read = sum(sizes[b] for b, p in pairs if p.startswith("in_ptr"))
    return name, read, sum(sizes[b] for b, p in pairs if p.startswith("out_ptr"))


def traffic() -> dict:
    model, x = model_and_input()
    return {"eager": eager_kernels(model, x), "fused": [fused_kernel(model, x)]}


def totals(kernels: list) -> tuple[int, int]:
    return sum(r for _, r, _ in kernels), sum(w for _, _, w in kernels)


def describe(data: dict, lang: str) -> str:
    words = WORDS[lang]
    parts = []
    for side, kernels in data.items():
        read, written = totals(kernels)
        listed = ", ".join(words["kernel"].format(name=n, read=r, written=w) for n, r, w in kernels)
        parts.append(words["side"].format(side=words[side], kernels=listed,
                                          total=words["total"].format(read=read, written=written)))
    return "; ".join(parts)


def draw(data: dict, lang: str) -> tuple[str, str]:
    """Per kernel a read bar and a written bar on one scale; a line per side with its totals."""
    words = WORDS[lang]
    scale = BAR / max(max(totals(k)) for k in data.values())
    body = [figure.rect(LEFT, 8, 10, 10, figure.BLUE, 0.5), figure.text(LEFT + 14, 17, words["read"], size=11),
            figure.rect(LEFT + 100, 8, 10, 10, figure.ORANGE, 0.5), figure.text(LEFT + 114, 17, words["write"], size=11)]
    y = 30
    for side, kernels in data.items():
        body.append(figure.text(4, y + 14, words[side], bold=True))
        y += 22
        for name, read, written in [*kernels, (words["total"].split(":")[0], *totals(kernels))]:
            total = name == words["total"].split(":")[0]
            body += [figure.text(12, y + 16, name, size=11, bold=total),
                     figure.rect(LEFT, y + 2, read * scale, 11, figure.BLUE, 0.5),
                     figure.rect(LEFT, y + 14, written * scale, 11, figure.ORANGE, 0.5),
                     figure.text(LEFT + max(read, written) * scale + 6, y + 17, (f"{read:,} / {written:,} B" if lang == "en" else f"{read} / {written} B"), size=11)]
            y += ROW
        y += 8
    desc = describe(data, lang)
    return (figure.svg(LEFT + BAR + 130, y, body, words["title"], desc, "fused-traffic", lang, described=True),
            desc + ".")


def main():
    data = traffic()
    print(figure.in_languages("fused-traffic", lambda lang: draw(data, lang)))


def claim_fewer_bytes(main):
    """#part-c: op by op the softmax reads 24,016 B and writes 14,416 B; the fused kernel reads only the addmm output, 4,800 B, and writes the probabilities plus the row maxima and sums, 4,816 B."""
    desc = main.desc
    eager, fused = desc.split("; fused by Inductor: ")
    return (eager.endswith("in all: 24,016 B read, 14,416 B written")
            and fused.startswith("cpp_fused__softmax_0: reads 4,800 B, writes 4,816 B"))
