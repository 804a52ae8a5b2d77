"""Each page's code blocks made lighter for the reader's browser (engine/hooks.py, `on_page_content`).

As a page loads, the theme's script restyles every element several times (it sets the colour scheme on
the body), and a page of code is mostly the highlighter's token spans:
- a span of a class the theme colours as plain code (`n`, a name) or not at all (`w`, white space)
  becomes its text: the same page, about a quarter fewer elements;
- each block's `<pre>` carries its line count, from which readers.css sizes it while it is off screen,
  where the browser skips styling and laying it out until the reader scrolls near it
  (`content-visibility: auto`);
- the theme mounts a block (its copy button, and a `tabindex` that lets the keyboard scroll a block too
  wide for its column) only as it comes into view (`content.lazy`): a block with a line longer than
  WIDE characters, which may scroll sideways, is focusable from the start (once mounted, the theme
  keeps the `tabindex` or drops it as the block's real width says).
"""

from __future__ import annotations

import html
import re

PLAIN_TOKEN = re.compile(r'<span class="[nw]">([^<]*)</span>')
BLOCK = re.compile(r"<pre>(.*?)</pre>", re.DOTALL)
TAG = re.compile(r"<[^>]+>")
WIDE = 80  # characters: a narrower line fits a desktop column (12 to 13.6 px code, 700 px or more)


def _counted(block: re.Match) -> str:
    code = PLAIN_TOKEN.sub(r"\1", block[1])
    lines = html.unescape(TAG.sub("", code)).split("\n")
    if max(map(len, lines)) > WIDE:
        code = code.replace("<code>", '<code tabindex="0">', 1)
    return f'<pre style="--nmb-lines: {max(1, len(lines) - 1)}">{code}</pre>'


def lighter(html_text: str) -> str:
    """The page's HTML with its code blocks' plain token spans unwrapped, their lines counted, and the
    wide ones focusable."""
    return BLOCK.sub(_counted, html_text)
