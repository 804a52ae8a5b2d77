"""A flowchart drawn top to bottom as a self-contained SVG: boxes of text lines, each linked to the next.

Pages draw their diagrams at build time with it, so no diagram library reaches the reader; the <title>
and <desc> are the diagram's text alternative.
"""

from dataclasses import dataclass
from html import escape

from snippets import figure

CHAR = 7.8  # width of one character of the 13 px monospace font, in px
LINE, PAD, GAP, MARGIN = 18, 12, 46, 8  # a text line, the space inside a box, between boxes, around them


@dataclass(frozen=True)
class Box:
    """A box of text lines, the first in bold; dashed: a step the flow does not take."""

    lines: tuple[str, ...]
    dashed: bool = False


@dataclass(frozen=True)
class Link:
    """What joins a box to the next: an arrow with a label, or a dashed line (no arrow) where dashed."""

    label: str = ""
    dashed: bool = False


def _box(box: Box, x: float, y: float, width: float) -> list[str]:
    height = len(box.lines) * LINE + PAD
    dash = ' stroke-dasharray="5 5" fill-opacity="0"' if box.dashed else ' fill-opacity="0.12"'
    parts = [f'<rect x="{x:.1f}" y="{y}" width="{width:.1f}" height="{height}" rx="5" fill="#1565c0"{dash}/>']
    for i, line in enumerate(box.lines):
        bold = ' font-weight="bold"' if i == 0 else ""
        parts.append(f'<text x="{x + width / 2:.1f}" y="{y + PAD / 2 + LINE * i + 13}" text-anchor="middle" '
                     f'stroke="none"{bold}>{escape(line, quote=False)}</text>')
    return parts


def _link(link: Link, x: float, top: float, marker: str) -> list[str]:
    style = ' stroke-dasharray="5 5"' if link.dashed else f' marker-end="url(#{marker})"'
    parts = [f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + GAP}"{style}/>']
    if link.label:
        parts.append(f'<text x="{x + 8:.1f}" y="{top + GAP / 2 + 4}" font-size="11" stroke="none">'
                     f"{escape(link.label, quote=False)}</text>")
    return parts


def svg(boxes: list[Box], links: list[Link], title: str, desc: str, name: str, lang: str | None = None,
        described: bool = False) -> str:
    """The boxes one under the other, centred, links[i] joining box i to box i + 1 (figure.svg says what
    name, lang and described do)."""
    width = max(max(len(line) for line in box.lines) * CHAR + 2 * PAD for box in boxes)
    labels = max((len(link.label) * CHAR * 11 / 13 + 8 for link in links), default=0)
    total = max(width, 2 * labels) + 2 * MARGIN
    centre = total / 2
    parts, y = [], MARGIN
    for i, box in enumerate(boxes):
        parts += _box(box, centre - width / 2, y, width)
        y += len(box.lines) * LINE + PAD
        if i < len(links):
            parts += _link(links[i], centre, y, figure.marker(name, lang))
            y += GAP
    return figure.svg(total, y + MARGIN, parts, title, desc, name, lang, described)
