"""Pages a learner finishes: each built page states its reading time, computed from what it shows
(engine/site/reading_time.py), none is over the limit, and every output longer than LONG_OUTPUT lines has a
sentence of prose right before it, saying what to look for."""
from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from engine.site import reading_time
from engine.source.urls import page_url
from engine.source.translations import english_pages

from .test_built_site import built_pages

LONG_OUTPUT = 25  # lines
CODE = {"highlight", "nmb-output", "nmb-provenance", "example"}  # snippet blocks, and a folded module
AROUND = {"tabbed-set", "tabbed-content", "tabbed-block"}  # the CPU and GPU tabs of one output


def article(page: Path) -> BeautifulSoup:
    return BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").article


DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = [page.relative_to(DOCS).as_posix() for page in english_pages(DOCS)]


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("src", PAGES)
def test_each_page_states_its_reading_time_within_the_limit(built_site, src, lang):
    page = built_site / ("" if lang == "en" else f"{lang}/") / page_url(src) / "index.html"
    shown = article(page)
    stated = reading_time.stated(str(shown))
    assert stated is not None, f"{page}: no reading time under the title"
    assert abs(stated - reading_time.minutes(str(shown))) <= 1, f"{page}: {stated} min is not what it shows"
    assert stated <= reading_time.LIMIT_MINUTES, f"{src} ({lang}): {stated} min of reading"


def _block(node):
    """The element a snippet's output sits in at the level of the page's prose: out of its tabs."""
    while node.parent is not None and AROUND & set(node.parent.get("class") or []):
        node = node.parent
    return node


def sentence_before(output) -> bool:
    """Prose right before the output's snippet block (code blocks and folded modules may sit in between),
    or, for an output folded in a collapsed block, right before that block."""
    return _prose_before(_block(output)) or (fold := output.find_parent("details")) is not None and _prose_before(fold)


def _prose_before(node) -> bool:
    before = node.find_previous_sibling()
    while before is not None and CODE & set(before.get("class") or []):
        before = before.find_previous_sibling()
    return before is not None and before.name == "p" and len(before.get_text(" ", strip=True).split()) >= 4


@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_long_output_has_a_sentence_before_it(built_site, lang):
    bare = []
    for page in built_pages(built_site, lang):
        for output in article(page).select(".nmb-output"):
            lines = len(output.get_text().strip("\n").split("\n"))
            if lines > LONG_OUTPUT and not sentence_before(output):
                bare.append(f"{page.parent.relative_to(built_site)}: {lines} lines after «{output.get_text()[:60]}»")
    assert not bare, "an output over 25 lines with no sentence before it:\n" + "\n".join(bare)
