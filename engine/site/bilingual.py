"""An output drawn in each of the site's languages (a figure): a page keeps the parts in its own language.

A snippet opens each part with a line `<!-- nmb-lang: xx -->` (snippets/figure.py writes them). What comes
before the first such line belongs to every language; an output without one is shown whole.
"""

from __future__ import annotations

import re

from engine.source.sources import SnippetError

MARK = re.compile(r"^<!-- nmb-lang: (\w+) -->[ \t]*\n?", re.MULTILINE)


def in_language(text: str, lang: str) -> str:
    """The output as the page of `lang` shows it; SnippetError where the output has no part in `lang`."""
    pieces = MARK.split(text)
    if len(pieces) == 1:
        return text
    parts = list(zip(pieces[1::2], pieces[2::2]))
    mine = [body for part_lang, body in parts if part_lang == lang]
    if not mine:
        raise SnippetError(f"the output is drawn in {sorted({p for p, _ in parts})} but not in {lang!r}")
    return pieces[0] + "".join(mine)


DESCRIBED = re.compile(r'aria-describedby="([\w-]+)"')


def link_descriptions(html: str) -> str:
    """A page with each figure's aria-describedby naming the paragraph as built: markdown-exec prefixes the
    ids inside an output (`exec-3--name-text`), not the SVG's attribute, which raw HTML keeps as drawn."""

    def relink(match: re.Match) -> str:
        name = match[1]
        if f'id="{name}"' in html:
            return match[0]
        prefixed = re.findall(rf'id="(exec-\d+--{re.escape(name)})"', html)
        return f'aria-describedby="{prefixed[0]}"' if len(prefixed) == 1 else match[0]

    return DESCRIBED.sub(relink, html)
