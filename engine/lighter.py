"""Each page's code blocks made lighter for the reader's browser (engine/hooks.py, `on_page_content`).

As a page loads, the theme's script restyles every element several times (it sets the colour scheme on
the body), and a page of code is mostly the highlighter's token spans:
- a span of a class the theme colours as plain code (`n`, a name) or not at all (`w`, white space)
  becomes its text: the same page, about a quarter fewer elements;
- each block's `<pre>` carries its line count, from which readers.css sizes it while it is off screen,
  where the browser skips styling and laying it out until the reader scrolls near it
  (`content-visibility: auto`).
"""

from __future__ import annotations

import re

PLAIN_TOKEN = re.compile(r'<span class="[nw]">([^<]*)</span>')
BLOCK = re.compile(r"<pre>(.*?)</pre>", re.DOTALL)


def _counted(block: re.Match) -> str:
    code = PLAIN_TOKEN.sub(r"\1", block[1])
    lines = max(1, code.count("\n"))
    return f'<pre style="--nmb-lines: {lines}">{code}</pre>'


def lighter(html: str) -> str:
    """The page's HTML with its code blocks' plain token spans unwrapped and their lines counted."""
    return BLOCK.sub(_counted, html)
