"""Every page stays readable: no paragraph or list item over 120 words, in either language."""

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
FENCE = re.compile(r"^(\s*)(`{3,}).*?^\1\2\s*$", re.MULTILINE | re.DOTALL)
ITEM = re.compile(r"\n(?=\s*(?:[-*]|\d+\.) )")
LIMIT = 120


def long_paragraphs(markdown: str) -> list[str]:
    """Paragraphs and list items (tables and code left out) longer than LIMIT words."""
    prose = FENCE.sub("", markdown)
    blocks = [b for b in re.split(r"\n\s*\n", prose) if b.strip() and not b.lstrip().startswith("|")]
    return [item for block in blocks for item in ITEM.split(block) if len(item.split()) > LIMIT]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_no_paragraph_over_the_limit(page):
    found = long_paragraphs(page.read_text(encoding="utf-8"))
    assert not found, f"{page.relative_to(DOCS)}: {len(found)} paragraph(s) over {LIMIT} words, the first: {found[0][:120]!r}…"


def test_the_check_finds_a_long_paragraph():
    assert long_paragraphs(" ".join(["word"] * (LIMIT + 1))) and not long_paragraphs("```\n" + "w " * 500 + "\n```")
