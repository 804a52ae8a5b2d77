"""The task a page sets, read from the page itself (the page is the one place it is written)."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"
HEADING = re.compile(r"^#+ .*\{ #([\w-]+) \}\s*$")
MARK = re.compile(r'<span class="nmb-difficulty"[^>]*>[●○]{3}</span> *')  # a task's difficulty mark


def _plain(markdown: str) -> str:
    """Markdown inline text as a sentence: links to their text, no marks, backticks or emphasis."""
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", MARK.sub("", markdown))
    return " ".join(text.replace("`", "").replace("**", "").split())


def _start(lines: list[str], page: str, anchor: str, number: int) -> int:
    """The line where the task starts: its section's heading, or its exercise's paragraph."""
    start = next((i for i, line in enumerate(lines) if (m := HEADING.match(line)) and m.group(1) == anchor), None)
    if start is None:
        raise LookupError(f"{page} has no section #{anchor}")
    if number:
        start = next((i for i in range(start, len(lines))
                      if lines[i].startswith((f"**{number}. ", f"{number}. **"))), None)
        if start is None:
            raise LookupError(f"{page}#{anchor} has no exercise {number}")
    return start


def hint_text(page: str, anchor: str, number: int = 0) -> str:
    """The collapsed hint the page gives before the task's solution, plain ("" when it gives none)."""
    lines = (DOCS / page).read_text().splitlines()
    start = _start(lines, page, anchor, number)
    for i in range(start + 1, len(lines)):
        if lines[i].lstrip().startswith('??? tip "Hint"'):
            body = []
            for line in lines[i + 1:]:
                if line.strip() and len(line) - len(line.lstrip()) <= len(lines[i]) - len(lines[i].lstrip()):
                    break
                body.append(line)
            return _plain(" ".join(body))
        if lines[i].lstrip().startswith("??? success") or HEADING.match(lines[i]):
            return ""
    return ""


def task_text(page: str, anchor: str, number: int = 0) -> str:
    """The `**Task.**` paragraph of the section `anchor` of `page` (else its first paragraph), or the
    paragraph of its exercise `number` (`**3. Change and run.** ...`), as plain text."""
    lines = (DOCS / page).read_text().splitlines()
    start = next((i for i, line in enumerate(lines) if (m := HEADING.match(line)) and m.group(1) == anchor), None)
    if start is None:
        raise LookupError(f"{page} has no section #{anchor}")
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
        return _plain(re.sub(r"^(\*\*\d+\. [^*]*\*\*|\d+\. \*\*[^*]*\*\*) *", "", chosen))
    chosen = next((p for p in paragraphs if p.startswith("**Task.**")), paragraphs[0] if paragraphs else "")
    return _plain(chosen.removeprefix("**Task.**"))
