"""A diagram of the live graph, drawn from the walk: as a text tree, and as an SVG picture in each language."""

from html import escape

import torch
import torch.nn.functional as F

from snippets import figure
from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory02.graph_walk import label, walk

WORDS = {"en": {"none": "None (this input needs no gradient)", "again": "  (drawn above)"},
         "es": {"none": "None (esta entrada no necesita gradiente)", "again": "  (dibujado arriba)"}}


def head_loss():
    """cross_entropy(linear(x, W, b), target) on lab 00's inputs, and those leaves by name."""
    x, W, b = make_inputs()
    target = torch.randint(0, 600, (x.shape[0],))
    return F.cross_entropy(F.linear(x, W, b), target), {"x": x, "W": W, "b": b}


def tree_text(root, leaves, lang: str = "en") -> str:
    """The graph as an indented tree; a node reached twice is drawn once and referred to after."""
    words = WORDS[lang]
    nodes, edges = walk(root)
    drawn, lines = {0}, [label(root, leaves)]

    def draw(parent, prefix):
        children = [e for e in edges if e.parent == parent]
        for n, edge in enumerate(children):
            last = n == len(children) - 1
            if edge.child is None:
                text = words["none"]
            else:
                again = words["again"] if edge.child in drawn else ""
                text = label(nodes[edge.child], leaves) + again
            lines.append(f"{prefix}{'└── ' if last else '├── '}[{edge.slot}] {text}")
            if edge.child is not None and edge.child not in drawn:
                drawn.add(edge.child)
                draw(edge.child, prefix + ("    " if last else "│   "))

    draw(0, "")
    return "\n".join(lines)


def svg(root, leaves, lang: str | None = None, box_height: int = 28, row_gap: int = 36, char_width: float = 7.8) -> str:
    """The graph as a self-contained SVG: a row per depth, an arrow to each of next_functions; its title, the
    tree in `lang` (English where None), which it names its arrowhead after."""
    nodes, edges = walk(root)
    depth = [0] * len(nodes)
    for _ in nodes:  # longest path from the root, so a shared node sits below all its parents
        for e in edges:
            if e.child is not None:
                depth[e.child] = max(depth[e.child], depth[e.parent] + 1)
    rows = [[i for i in range(len(nodes)) if depth[i] == d] for d in range(max(depth) + 1)]
    widths = [len(label(node, leaves)) * char_width + 20 for node in nodes]
    gap = 24
    row_widths = [sum(widths[i] for i in row) + gap * (len(row) - 1) for row in rows]
    total = max(row_widths) + 2 * gap
    place = {}
    for d, row in enumerate(rows):
        left = (total - row_widths[d]) / 2
        for i in row:
            place[i] = (left, gap + d * (box_height + row_gap))
            left += widths[i] + gap
    height = gap * 2 + len(rows) * box_height + (len(rows) - 1) * row_gap
    in_lang = f' lang="{lang}"' if lang else ""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total:.0f}" height="{height}" '
             f'viewBox="0 0 {total:.0f} {height}" font-family="monospace" font-size="13" '
             f'fill="currentColor" stroke="currentColor" role="img"{in_lang}>',
             f"<title>{escape(tree_text(root, leaves, lang or 'en'))}</title>",  # the text alternative: the graph as text
             f'<defs><marker id="{figure.marker("grad", lang)}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
             'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" stroke="none"/></marker></defs>']
    for e in edges:
        if e.child is None:
            continue
        (px, py), (cx, cy) = place[e.parent], place[e.child]
        x1, x2 = px + widths[e.parent] / 2, cx + widths[e.child] / 2
        parts.append(f'<line x1="{x1:.1f}" y1="{py + box_height}" x2="{x2:.1f}" y2="{cy}" '
                     f'marker-end="url(#{figure.marker("grad", lang)})"/>')
        parts.append(f'<text x="{(x1 + x2) / 2 + 4:.1f}" y="{(py + box_height + cy) / 2 + 4:.1f}" '
                     f'font-size="11" stroke="none">{e.slot}</text>')
    for i, node in enumerate(nodes):
        x, y = place[i]
        leaf = type(node).__name__ == "AccumulateGrad"
        fill = "#2e7d32" if leaf else "#1565c0"  # leaves' nodes green, the others blue
        parts.append(f'<rect x="{x:.1f}" y="{y}" width="{widths[i]:.1f}" height="{box_height}" rx="5" '
                     f'fill="{fill}" fill-opacity="0.18"/>')
        parts.append(f'<text x="{x + widths[i] / 2:.1f}" y="{y + box_height / 2 + 4:.1f}" '
                     f'text-anchor="middle" stroke="none">{escape(label(node, leaves))}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main():
    loss, leaves = head_loss()
    print(tree_text(loss.grad_fn, leaves))


def main_svg():
    loss, leaves = head_loss()
    print(figure.in_languages("grad", lambda lang: (svg(loss.grad_fn, leaves, lang), "")))


def claim_no_cross_entropy_node(main_svg):
    """#diagram: there is no CrossEntropyBackward node: log_softmax and nll_loss each record their own node."""
    tree = main_svg.between("<svg", "</title>").text.split("<title>")[-1]
    return ("CrossEntropy" not in main_svg and tree.startswith("NllLossBackward0")
            and "└── [0] LogSoftmaxBackward0" in tree and "└── [0] AddmmBackward0" in tree)
