"""Words for a reader who never saw the course's drafts: no page speaks of "the text" (a draft the reader
cannot see) or of "the curriculum", and a phase that is not on the site is named as such.

Checked: every page's Markdown, in both languages, and every snippet module a page can show, except the
modules a GPU recording depends on (their source is hashed into the recording; they change when it is
recorded again)."""
import json
import re
from pathlib import Path

import pytest

from engine import sources

ROOT = Path(__file__).resolve().parents[1]
UNSEEN = re.compile(
    r"\bthe\s+(?:\w+'s\s+|original\s+|curriculum\s+|course\s+)?texts?\b(?!\s+(?:of|alternative)\b)"
    r"|\btext's\b|\bcurriculum\b"
    r"|\b(?:el|del|al|los)\s+textos?\b(?!\s+(?:del\s+kernel|de\s+entrada|alternativo)\b)"
    r"|\benunciado\b|\btemario\b|\bcurr[ií]culo\b",
    re.IGNORECASE)
IN_CODE = re.compile(  # in code, "the text" is often an output's or a kernel's own text
    r"\btext's\b|\bcurriculum\b|\boriginal\s+text\b|\bthe\s+text\s+(?:names|says|asks|expects|gives|suggests|writes|uses)\b",
    re.IGNORECASE)
PHASE = re.compile(r"\b(?:Phase|Fase)\s+(\d+)\b")
ON_SITE = {"24", "25"}
NOT_ON_SITE = re.compile(r"not on this site|no está en este sitio|no están en este sitio", re.IGNORECASE)

PAGES = sorted((ROOT / "docs").rglob("*.md"))


def recorded_closure() -> set[Path]:
    """The snippet modules some GPU recording's source hash covers."""
    covered = set()
    for recording in (ROOT / "snippets" / "recordings").glob("*.json"):
        module = recording.name.rsplit(".", 2)[0]
        covered.update(Path(p).resolve() for p in sources.closure(ROOT, ROOT / "snippets" / f"{module.replace('.', '/')}.py"))
    return covered


def unseen(text: str, pattern: re.Pattern = UNSEEN) -> list[str]:
    """Each line of `text` that speaks of an unseen draft."""
    return [line.strip() for line in text.splitlines() if pattern.search(line)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT / "docs").as_posix())
def test_no_page_speaks_of_an_unseen_text(page):
    assert unseen(page.read_text(encoding="utf-8")) == []


def test_no_shown_snippet_speaks_of_an_unseen_text():
    covered = recorded_closure()
    found = {str(p.relative_to(ROOT)): unseen(p.read_text(encoding="utf-8"), IN_CODE)
             for p in sorted((ROOT / "snippets").rglob("*.py")) if p.resolve() not in covered}
    assert {name: lines for name, lines in found.items() if lines} == {}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT / "docs").as_posix())
def test_a_phase_not_on_the_site_is_named_as_such(page):
    """A paragraph that names Phase N, N not on the site, says that it is not on this site."""
    for paragraph in page.read_text(encoding="utf-8").split("\n\n"):
        elsewhere = {n for n in PHASE.findall(paragraph) if n not in ON_SITE}
        assert not elsewhere or NOT_ON_SITE.search(paragraph), paragraph


OFF_SITE = re.compile(r"not on this site|not taught on this site|this site does not teach|no está en este sitio"
                      r"|no están en este sitio|este sitio no enseña|no se enseña en este sitio", re.IGNORECASE)


def opening(text: str) -> str:
    """A page's opening: the text before its first section, and its "Before you start" section."""
    head, _, rest = text.partition("\n## ")
    return head + ("\n## " + rest.split("\n## ", 1)[0] if "{ #before" in rest.split("\n", 1)[0] else "")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT / "docs").as_posix())
def test_a_prerequisite_not_on_the_site_is_a_link(page):
    """In a page's opening, each paragraph or list item that names something the site does not teach
    links to a page outside the site that does."""
    for block in re.split(r"\n\n|\n- ", opening(page.read_text(encoding="utf-8"))):
        assert not OFF_SITE.search(block) or "](http" in block, block
