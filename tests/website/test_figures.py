"""The built site's figures: how many, each with a text alternative in its page's language, and the home
page's stack map with every page of the course pinned to a layer."""

import re

import pytest

from engine.source.urls import page_url
from engine.source.translations import english_pages

from .test_built_site import DOCS, built_pages

FIGURES = 18  # issue 36: at least 18 figures on the English site (8 before it)
SVG = re.compile(r"<svg\b([^>]*)>(.*?)</svg>", re.DOTALL)
LANG = re.compile(r'\blang="(\w+)"')
DESCRIBED = re.compile(r'\baria-describedby="([\w-]+)"')


def figures(html: str) -> list[tuple[str, str]]:
    """(attributes, body) of every figure: an inline SVG with role img."""
    return [(attrs, body) for attrs, body in SVG.findall(html) if 'role="img"' in attrs]


def test_the_english_site_has_enough_figures(built_site):
    counts = {page.parent.name: len(figures(page.read_text(encoding="utf-8"))) for page in built_pages(built_site, "en")}
    assert sum(counts.values()) >= FIGURES, counts


@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_figure_has_a_text_alternative_in_its_pages_language(built_site, lang):
    english = built_pages(built_site, "en")
    for page, built in zip(english, built_pages(built_site, lang)):
        html = built.read_text(encoding="utf-8")
        found = figures(html)
        assert len(found) == len(figures(page.read_text(encoding="utf-8"))), f"{built}: not the English figures"
        for attrs, body in found:
            assert re.search(r"<title>[^<]+</title>", body), f"{built}: a figure without a <title>"
            drawn_in = LANG.search(attrs)
            assert drawn_in is None or drawn_in[1] == lang, f"{built}: a figure drawn in {drawn_in[1]}"
            described = DESCRIBED.search(attrs)
            if described:
                assert f'id="{described[1]}"' in html, f"{built}: no element #{described[1]} describes its figure"


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_home_page_shows_the_stack_map_with_every_page(built_site, lang):
    home = (built_site / ("" if lang == "en" else f"{lang}/") / "index.html").read_text(encoding="utf-8")
    assert any(re.search(r'aria-describedby="(exec-\d+--)?stack-map-text"', attrs) and f'lang="{lang}"' in attrs
               for attrs, _ in figures(home)), "no stack map on the home page"
    words = re.search(r'<p id="(?:exec-\d+--)?stack-map-text">(.*?)</p>', home, re.DOTALL)
    assert words, "the stack map's words are not on the home page"
    linked = {link.rstrip("/") + "/" for link in re.findall(r'href="([^"#]+)"', words[1])}
    pages = [page.relative_to(DOCS).as_posix() for page in english_pages(DOCS)]
    pinned = {page_url(p) for p in pages if p not in ("index.md", "glossary.md", "phase-25/index.md")}
    assert pinned == linked, (sorted(pinned - linked), sorted(linked - pinned))
