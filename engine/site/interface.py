"""Fixes to the markup the theme writes around every page: in the page's language, and valid.

Applied to each page's finished HTML (engine/hooks.py, `on_post_page`):
- Python-Markdown's `toc` titles every heading anchor "Permanent link", whatever the page's
  language: a translated page gets the title in its own language.
- Material writes `autocomplete="off"` on its checkbox toggles (the attribute is not allowed on a
  checkbox) and `tabindex=""` on section labels of the navigation (an empty value is invalid).
- A Markdown table whose corner cell is empty writes an empty header cell, which names nothing:
  it becomes a data cell.
- A navigation section is named by the label of its toggle, which holds only an icon when the
  section has an index page: an unnamed landmark (axe: landmark-unique). Each section is named by
  its title instead.
- The theme's scripts (its bundle, then readers.js) sit at the end of the body, where the browser
  still waits for each before it shows the page: each is deferred (run in the same order, once the
  page is parsed, as the theme's bundle expects: it starts on DOMContentLoaded).
"""

from __future__ import annotations

import re

PERMALINK = {"en": "Permanent link", "es": "Enlace permanente"}
ANCHOR = re.compile(r'(<a class="headerlink" href="[^"]*" title=")([^"]*)(")')
CHECKBOX_AUTOCOMPLETE = re.compile(r'(<input\b[^>]*\btype="checkbox"[^>]*?)\s+autocomplete="off"')
EMPTY_TABINDEX = 'tabindex=""'
EMPTY_HEADER = re.compile(r"<th(\s[^>]*)?>(\s*)</th>")
SCRIPT = re.compile(r'<script src="([^"]+)"></script>')
SECTION = re.compile(r'(<nav class="md-nav" data-md-level="\d+" aria-labelledby=")(\w+)_label("[^>]*>\s*'
                     r'<label class="md-nav__title" for="\2")>')


def in_language(html: str, lang: str) -> str:
    """Heading anchors titled in the page's language."""
    title = PERMALINK.get(lang)
    if title is None:
        return html
    return ANCHOR.sub(lambda m: m[1] + (title if m[2] == PERMALINK["en"] else m[2]) + m[3], html)


def without_empty_tabindex(html: str) -> str:
    r"""Every `tabindex=""` that follows white space removed, with that white space (as
    re.sub(r'\s+tabindex=""', '', html) does); str.split, as that expression tries every position of
    the page."""
    pieces = html.split(EMPTY_TABINDEX)
    kept = [pieces[0]]
    for piece in pieces[1:]:
        before = kept[-1].rstrip()
        kept[-1] = before if before != kept[-1] else kept[-1] + EMPTY_TABINDEX
        kept.append(piece)
    return "".join(kept)


def valid(html: str) -> str:
    """The theme's invalid attributes removed, empty headers and unnamed sections fixed, scripts deferred."""
    html = without_empty_tabindex(CHECKBOX_AUTOCOMPLETE.sub(r"\1", html))
    html = SCRIPT.sub(r'<script src="\1" defer></script>', html)
    html = SECTION.sub(r'\1\2_title\3 id="\2_title">', html)
    return EMPTY_HEADER.sub(lambda m: f"<td{m[1] or ''}>{m[2]}</td>", html)


def fix(html: str, lang: str) -> str:
    return valid(in_language(html, lang))
