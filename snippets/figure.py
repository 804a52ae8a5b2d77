"""What every figure drawn at build time shares: the <svg> element and its text alternative, in each of
the site's languages, drawn from data computed once.

A figure module computes its data, then draws it once per language: `in_languages(name, draw)` prints
each drawing after a line naming its language, and the page shows the one in its own (engine/site/bilingual.py).
Each drawing is the SVG, whose aria-describedby names the paragraph under it that says in words what it draws.
"""

from collections.abc import Callable
from html import escape

LANGS = ("en", "es")
IN_WORDS = {"en": "In words:", "es": "En palabras:"}
BLUE, GREEN, RED, ORANGE, PURPLE = "#1565c0", "#2e7d32", "#c62828", "#ef6c00", "#6a1b9a"


def text(x: float, y: float, content: str, size: int | None = None, anchor: str | None = None,
         bold: bool = False, tip: str | None = None) -> str:
    """One line of text; `tip`, a tooltip (an SVG <title> a pointer shows)."""
    attrs = (f' font-size="{size}"' if size else "") + (f' text-anchor="{anchor}"' if anchor else "")
    attrs += ' font-weight="bold"' if bold else ""
    inner = escape(content, quote=False) + (f"<title>{escape(tip, quote=False)}</title>" if tip else "")
    return f'<text x="{x:.1f}" y="{y:.1f}"{attrs} stroke="none">{inner}</text>'


def rect(x: float, y: float, width: float, height: float, fill: str = BLUE, opacity: float = 0.12,
         dashed: bool = False, tip: str | None = None) -> str:
    """A box with a thin outline in the colour of the page's words; dashed: drawn but not taken."""
    dash = ' stroke-dasharray="5 5"' if dashed else ""
    inner = f"<title>{escape(tip, quote=False)}</title></rect>" if tip else ""
    end = ">" + inner if tip else "/>"
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{height:.1f}" rx="4" fill="{fill}" '
            f'fill-opacity="{opacity}"{dash}{end}')


def marker(name: str, lang: str | None = None) -> str:
    """The id of a figure's arrowhead, one per language: a lab's notebook shows every language's drawing."""
    return f"{name}-{lang}-arrow" if lang else f"{name}-arrow"


def arrow(x1: float, y1: float, x2: float, y2: float, name: str, lang: str | None = None, dashed: bool = False) -> str:
    """A straight arrow using the arrowhead `svg(..., name, lang)` defines."""
    dash = ' stroke-dasharray="4 4"' if dashed else ""
    return (f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"{dash} '
            f'marker-end="url(#{marker(name, lang)})"/>')


def svg(width: float, height: float, body: list[str], title: str, desc: str, name: str,
        lang: str | None = None, described: bool = False) -> str:
    """The self-contained <svg>: role img, named by its <title>, described by its <desc> and, where
    `described`, by the paragraph `#{name}-text` under it; `name` keeps its arrowhead's id unique on the page."""
    extra = (f' lang="{lang}"' if lang else "") + (f' aria-describedby="{name}-text"' if described else "")
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="monospace" font-size="13" fill="currentColor" '
        f'stroke="currentColor" role="img"{extra}>',
        f"<title>{escape(title, quote=False)}</title>", f"<desc>{escape(desc, quote=False)}</desc>",
        f'<defs><marker id="{marker(name, lang)}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" stroke="none"/></marker></defs>',
        *body, "</svg>"]) + "\n"


def in_languages(name: str, draw: Callable[[str], tuple[str, str]]) -> str:
    """Each language's drawing, `draw(lang) -> (svg, words)`, after the line that names its language,
    its words (if any: a figure its <desc> describes alone has none) a paragraph `#{name}-text` under it
    (the SVG's aria-describedby)."""
    parts = []
    for lang in LANGS:
        picture, words = draw(lang)
        said = f"\n**{IN_WORDS[lang]}** {words}\n{{ #{name}-text }}\n" if words else ""
        parts.append(f"<!-- nmb-lang: {lang} -->\n{picture.strip()}\n{said}")
    return "\n".join(parts)
