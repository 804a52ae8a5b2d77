"""Each page's reading time, computed from the page as built and stated under its title
(engine/hooks.py, `on_page_content`).

A reader reads prose at about 200 words a minute and code or output at about 30 lines a minute.
What a page shows counts: a collapsed block (a worked solution, a folded helper module) is opened
when the reader works, which is working time, not reading time; so is a lab's "Run it yourself" box and
its notebook buttons (the theme adds them around the page's content, after it is stamped). Figures and
tables' markup count only by the words they hold.
"""

from __future__ import annotations

import math
import re
from html.parser import HTMLParser

WORDS_A_MINUTE = 200
LINES_A_MINUTE = 30
LIMIT_MINUTES = 35  # a page longer than this is split or folded: the tests fail it
STATED = {"en": "Reading time: about {minutes} min.", "es": "Tiempo de lectura: unos {minutes} min."}
STATED_CLASS = "nmb-reading-time"
TITLE_END = re.compile(r"</h1>")
WORD = re.compile(r"\w+")


class _Reader(HTMLParser):
    """Counts the words outside `<pre>` and the lines inside it, skipping what a collapsed `<details>`
    hides (its summary shows), `<svg>` drawings, the provenance line under each output, and a lab's
    run box and notebook buttons."""

    SKIPPED = {"svg", "script", "style"}
    EMPTY = {"br", "img", "hr", "input", "meta", "link", "wbr", "source"}
    UNCOUNTED = {"nmb-provenance", STATED_CLASS, "nmb-run-box", "nmb-notebooks"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.words, self.lines = 0, 0
        self._stack: list[tuple[str, bool, bool]] = []  # (tag, hidden, hides what it holds) per open element
        self._pre: list[str] | None = None

    def _hidden(self) -> bool:
        return bool(self._stack) and self._stack[-1][1]

    def handle_starttag(self, tag, attrs):
        if tag in self.EMPTY:
            return
        attributes = dict(attrs)
        classes = set((attributes.get("class") or "").split())
        if self._stack:
            parent, parent_hidden, hides = self._stack[-1]
            hidden = parent_hidden or (hides and not (parent == "details" and tag == "summary"))
        else:
            hidden = False
        hidden = hidden or tag in self.SKIPPED or bool(classes & self.UNCOUNTED)
        self._stack.append((tag, hidden, tag == "details" and "open" not in attributes))
        if tag == "pre" and not hidden:
            self._pre = []

    def handle_endtag(self, tag):
        if tag in self.EMPTY or tag not in (opened for opened, _, _ in self._stack):
            return
        while self._stack and self._stack.pop()[0] != tag:
            pass
        if tag == "pre" and self._pre is not None:
            self.lines += len("".join(self._pre).strip("\n").split("\n"))
            self._pre = None

    def handle_data(self, data):
        if self._hidden():
            return
        if self._pre is not None:
            self._pre.append(data)
        else:
            self.words += len(WORD.findall(data))


def counts(html_text: str) -> tuple[int, int]:
    """The words of prose and the lines of code or output a reader sees on the page."""
    reader = _Reader()
    reader.feed(html_text)
    reader.close()
    return reader.words, reader.lines


def minutes(html_text: str) -> int:
    """The page's reading time, in whole minutes (at least 1)."""
    words, lines = counts(html_text)
    return max(1, math.ceil(words / WORDS_A_MINUTE + lines / LINES_A_MINUTE))


def stated(html_text: str) -> int | None:
    """The minutes a built page states, or None."""
    found = re.search(rf'class="{STATED_CLASS}"[^>]*>\D*(\d+)', html_text)
    return int(found[1]) if found else None


def stamp(html_text: str, lang: str) -> str:
    """The page with its reading time stated right under its title."""
    line = f'<p class="{STATED_CLASS}">{STATED.get(lang, STATED["en"]).format(minutes=minutes(html_text))}</p>'
    return TITLE_END.sub(lambda m: m[0] + "\n" + line, html_text, count=1)
