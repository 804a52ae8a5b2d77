"""Each page's code blocks made lighter for the reader's browser (engine/hooks.py, `on_page_content`).

As a page loads, the browser parses, styles and lays out every element, on a phone in tasks that block
the reader, and a page of code is mostly the highlighter's token spans:
- a span of a class the theme colours as plain code (`n`, a name; `kc`, a constant such as `None`) or
  not at all (`w`, white space) becomes its text: the same page, about a quarter fewer elements;
- neighbouring spans the theme colours alike in both schemes (punctuation and operators; the string
  classes; the keywords; ...), with nothing or spaces between them, become one span of the first one's
  class: `)] ->` is one span, not three;
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

PLAIN_TOKEN = re.compile(r'<span class="(?:n|w|kc)">([^<]*)</span>')
# Token classes that Material's stylesheet gives one colour variable, and nothing else: punctuation and
# operators share one too (Material gives both --md-default-fg-color--light; readers.css sets both to
# #0000009e on the light scheme).
ALIKE = [("o", "ow", "p"), ("cpf", "l", "s", "s1", "s2", "sb", "sc", "si", "ss"), ("cp", "se", "sh", "sr", "sx"),
         ("il", "m", "mb", "mf", "mh", "mi", "mo"), ("k", "kd", "kn", "kp", "kr", "kt", "nd", "ni", "nl", "nt"),
         ("bp", "nb", "no"), ("nc", "ne", "nf", "nn"), ("c", "c1", "ch", "cm", "cs", "sd"),
         ("na", "nv", "vc", "vg", "vi")]
GROUP = {name: group[0] for group in ALIKE for name in group}
NEIGHBOURS = re.compile(r'<span class="([a-z0-9]+)">([^<]*)</span>((?: *<span class="(?:[a-z0-9]+)">[^<]*</span>)+)')
SPAN = re.compile(r'( *)<span class="([a-z0-9]+)">([^<]*)</span>')
BLOCK = re.compile(r"<pre>(.*?)</pre>", re.DOTALL)
TAG = re.compile(r"<[^>]+>")
WIDE = 80  # characters: a narrower line fits a desktop column (12 to 13.6 px code, 700 px or more)


def _merged(run: re.Match) -> str:
    """A run of neighbouring token spans, each stretch coloured alike as one span."""
    spans = [("", run[1], run[2])] + SPAN.findall(run[3])
    out, group = [], None
    for gap, name, text in spans:
        if group is not None and GROUP.get(name) == group:
            out[-1][1] += gap + text
        else:
            out.append([gap, text, name])
            group = GROUP.get(name)
    return "".join(f'{gap}<span class="{name}">{text}</span>' for gap, text, name in out)


def _counted(block: re.Match) -> str:
    code = NEIGHBOURS.sub(_merged, PLAIN_TOKEN.sub(r"\1", block[1]))
    lines = html.unescape(TAG.sub("", code)).split("\n")
    if max(map(len, lines)) > WIDE:
        code = code.replace("<code>", '<code tabindex="0">', 1)
    return f'<pre style="--nmb-lines: {max(1, len(lines) - 1)}">{code}</pre>'


def lighter(html_text: str) -> str:
    """The page's HTML with its code blocks' plain token spans unwrapped, their lines counted, and the
    wide ones focusable."""
    return BLOCK.sub(_counted, html_text)
