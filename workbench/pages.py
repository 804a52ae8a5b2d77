"""The task a page sets, read from the page itself (the page is the one place it is written), in English
or from the page's Spanish twin."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"
HEADING = re.compile(r"^#+ .*\{ #([\w-]+) \}\s*$")
TASK = {"en": "**Task.**", "es": "**Tarea.**"}  # how a lab part's task paragraph opens
HINT = {"en": '??? tip "Hint"', "es": '??? tip "Pista"'}
MARK = re.compile(r'<span class="nmb-difficulty"[^>]*>[●○]{3}</span> *')  # a task's difficulty mark


def _lines(page: str, lang: str) -> list[str]:
    """The page's Markdown lines in `lang` (its `.es.md` twin for Spanish)."""
    path = DOCS / (page if lang == "en" else page.removesuffix(".md") + f".{lang}.md")
    return path.read_text(encoding="utf-8").splitlines()


def _plain(markdown: str, code: bool = False) -> str:
    """Markdown inline text as a sentence: links to their text, no marks or emphasis, no backticks unless
    `code` (a notebook's Markdown keeps its code spans)."""
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", MARK.sub("", markdown)).replace("**", "")
    return " ".join((text if code else text.replace("`", "")).split())


def _heading(lines: list[str], page: str, anchor: str) -> int:
    """The line of the heading of section `anchor`."""
    start = next((i for i, line in enumerate(lines) if (m := HEADING.match(line)) and m.group(1) == anchor), None)
    if start is None:
        raise LookupError(f"{page} has no section #{anchor}")
    return start


def _heading_text(line: str) -> str:
    """A heading line's text, its code spans kept: `## Part B — The code { #code }` gives `Part B — The code`."""
    return _plain(re.sub(r"\{ #[\w-]+ \}\s*$", "", line).lstrip("#"), code=True)


def page_title(page: str, lang: str = "en") -> str:
    """The page's title, its first-level heading."""
    return _heading_text(next(line for line in _lines(page, lang) if line.startswith("# ")))


def task_title(page: str, anchor: str, number: int = 0, lang: str = "en") -> str:
    """The task's title: its section's heading (after its parent's, for a subsection whose heading names no
    part or step of its own, `... — ...`), and for an exercise its number and bold title
    (`Exercises: 3. Change and run.`)."""
    lines = _lines(page, lang)
    at = _heading(lines, page, anchor)
    section = _heading_text(lines[at])
    level = len(lines[at]) - len(lines[at].lstrip("#"))
    if level > 2 and " — " not in section:
        parent = next(line for line in reversed(lines[:at])
                      if HEADING.match(line) and line.startswith("#" * (level - 1) + " "))
        section = f"{_heading_text(parent)}: {section}"
    if not number:
        return section
    paragraph = lines[_start(lines, page, anchor, number)]
    title = re.match(r"^(?:\*\*(\d+\. [^*]*)\*\*|(\d+\.) \*\*([^*]*)\*\*)", paragraph)
    return f"{section}: " + _plain(title.group(1) or f"{title.group(2)} {title.group(3)}", code=True)


def _start(lines: list[str], page: str, anchor: str, number: int) -> int:
    """The line where the task starts: its section's heading, or its exercise's paragraph."""
    start = _heading(lines, page, anchor)
    if number:
        start = next((i for i in range(start, len(lines))
                      if lines[i].startswith((f"**{number}. ", f"{number}. **"))), None)
        if start is None:
            raise LookupError(f"{page}#{anchor} has no exercise {number}")
    return start


def hint_text(page: str, anchor: str, number: int = 0, lang: str = "en", code: bool = False) -> str:
    """The collapsed hint the page gives before the task's solution, plain ("" when it gives none); its
    code spans kept when `code`."""
    lines = _lines(page, lang)
    start = _start(lines, page, anchor, number)
    for i in range(start + 1, len(lines)):
        if lines[i].lstrip().startswith(HINT[lang]):
            body = []
            for line in lines[i + 1:]:
                if line.strip() and len(line) - len(line.lstrip()) <= len(lines[i]) - len(lines[i].lstrip()):
                    break
                body.append(line)
            return _plain(" ".join(body), code)
        if lines[i].lstrip().startswith("??? success") or HEADING.match(lines[i]):
            return ""
    return ""


def task_text(page: str, anchor: str, number: int = 0, lang: str = "en", code: bool = False) -> str:
    """The `**Task.**` paragraph of the section `anchor` of `page` (else its first paragraph), or the
    paragraph of its exercise `number` (`**3. Change and run.** ...`), as plain text (its code spans kept
    when `code`)."""
    lines = _lines(page, lang)
    start = _heading(lines, page, anchor)
    paragraphs, current = [], []
    for line in lines[start + 1:]:
        if line.startswith("#") or (not number and line.startswith(("???", "!!!"))):
            break
        if line.startswith(("???", "!!!", "    ")):
            continue
        if line.strip():
            current.append(line)
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    paragraphs += [" ".join(current)] if current else []
    if number:
        chosen = next((p for p in paragraphs if p.startswith((f"**{number}. ", f"{number}. **"))), None)
        if chosen is None:
            raise LookupError(f"{page}#{anchor} has no exercise {number}")
        return _plain(re.sub(r"^(\*\*\d+\. [^*]*\*\*|\d+\. \*\*[^*]*\*\*) *", "", chosen), code)
    chosen = next((p for p in paragraphs if p.startswith(TASK[lang])), paragraphs[0] if paragraphs else "")
    return _plain(chosen.removeprefix(TASK[lang]), code)
