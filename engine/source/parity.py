"""Structural parity of a page and its translation: same snippets, headings, anchors and links."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engine.source.includes import FENCE, page_includes
from engine.source.translations import LANGS, english_pages, twin

HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*$", re.MULTILINE)
ANCHOR = re.compile(r"\{[^}]*#([A-Za-z][\w-]*)[^}]*\}\s*$")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)[^)]*\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)[^)]*\)")
ANY_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,}).*?^\1\2[ \t]*$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Structure:
    includes: tuple
    headings: tuple[tuple[int, str | None], ...]
    links: tuple[str, ...]
    images: tuple[str, ...]


def structure(markdown: str) -> Structure:
    """What must match between languages; code fences are ignored for headings and links."""
    includes = tuple(page_includes(markdown))
    prose = ANY_FENCE.sub("", FENCE.sub("", markdown))
    headings = []
    for level, text in HEADING.findall(prose):
        anchor = ANCHOR.search(text)
        headings.append((len(level), anchor.group(1) if anchor else None))
    return Structure(includes, tuple(headings), tuple(LINK.findall(prose)), tuple(IMAGE.findall(prose)))


def page_problems(english: Path, translated: Path) -> list[str]:
    """Differences between a page and its translation, each naming both files."""
    a = structure(english.read_text(encoding="utf-8"))
    b = structure(translated.read_text(encoding="utf-8"))
    problems = []
    for what in ("includes", "headings", "links", "images"):
        if getattr(a, what) != getattr(b, what):
            problems.append(f"{translated} differs from {english} in its {what}:\n"
                            f"  en: {getattr(a, what)}\n  {translated.suffixes[0][1:]}: {getattr(b, what)}")
    missing = [level for level, anchor in a.headings if anchor is None]
    if missing:
        problems.append(f"{english}: {len(missing)} heading(s) lack an explicit {{ #anchor }}")
    return problems


def site_problems(docs: Path) -> list[str]:
    problems = []
    for page in english_pages(docs):
        for lang in LANGS:
            if twin(page, lang).is_file():
                problems += page_problems(page, twin(page, lang))
    return problems
