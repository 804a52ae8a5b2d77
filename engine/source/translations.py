"""Every English page has a Spanish twin (`page.md` beside `page.es.md`), and no twin is orphaned."""

from __future__ import annotations

from pathlib import Path

LANGS = ("es",)


def twin(path: Path, lang: str) -> Path:
    return path.with_name(f"{path.stem}.{lang}.md")


def english_pages(docs: Path) -> list[Path]:
    return sorted(p for p in docs.rglob("*.md") if len(p.suffixes) == 1)


def missing_twins(docs: Path) -> list[str]:
    """Human-readable lines naming each missing or orphaned translation."""
    lines = []
    for page in english_pages(docs):
        for lang in LANGS:
            if not twin(page, lang).is_file():
                lines.append(f"{twin(page, lang).relative_to(docs)} is missing (twin of {page.relative_to(docs)})")
    for lang in LANGS:
        for page in sorted(docs.rglob(f"*.{lang}.md")):
            english = page.with_name(page.name.removesuffix(f".{lang}.md") + ".md")
            if not english.is_file():
                lines.append(f"{page.relative_to(docs)} has no English page {english.relative_to(docs)}")
    return lines
