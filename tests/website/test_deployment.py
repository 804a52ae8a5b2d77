"""The site as deployed under `site_url` (the tests build it under a sub-path of another host): a
sitemap with both languages' alternates, canonical links and hreflang alternates on every page,
and notebooks whose links lead to the site from wherever the file is opened."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from engine.source.translations import LANGS

from .support import NOTEBOOK_PAGES, SITE_URL, site_pages
from .test_markup import parsed_page

ROOT = Path(__file__).resolve().parents[2]
PAGES = site_pages(ROOT / "docs")
NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "xhtml": "http://www.w3.org/1999/xhtml"}
MARKDOWN_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)[^)]*\)")
CODE = re.compile(r"(`{3,}).*?\1|`[^`\n]*`", re.DOTALL)  # code blocks and spans hold no links


def head_links(site: Path, path: str) -> tuple[list[str], dict[str, str]]:
    """(canonical hrefs, {hreflang: href}) in the head of the page at `path`."""
    tree, _ = parsed_page(site / path / "index.html")
    links = list(tree.find("head").iter("link"))
    canonical = [link.get("href") for link in links if (link.get("rel") or "").split() == ["canonical"]]
    alternates = {link.get("hreflang"): link.get("href") for link in links
                  if (link.get("rel") or "").split() == ["alternate"] and link.get("hreflang")}
    return canonical, alternates


def test_sitemap_lists_every_page_with_its_translations(built_site):
    root = ElementTree.parse(built_site / "sitemap.xml").getroot()
    assert root.tag == f"{{{NS['s']}}}urlset"
    entries = {}
    for url in root.findall("s:url", NS):
        alternates = {link.get("hreflang"): link.get("href") for link in url.findall("xhtml:link", NS)}
        assert all(link.get("rel") == "alternate" for link in url.findall("xhtml:link", NS))
        entries[url.find("s:loc", NS).text] = alternates
    # A notebook page repeats its lab page's prose, a workspace page its tasks: like search, the sitemap lists
    # the lab page only.
    expected = {SITE_URL + page.path for page in PAGES if page.path.rstrip("/").split("/")[-1] not in NOTEBOOK_PAGES}
    assert set(entries) == expected
    for loc, alternates in entries.items():
        assert set(alternates) == set(LANGS) | {"en"}, loc
        assert loc in alternates.values() and set(alternates.values()) <= expected, loc


def test_every_page_has_its_canonical_link_and_language_alternates(built_site):
    problems = []
    for page in PAGES:
        canonical, alternates = head_links(built_site, page.path)
        if canonical != [SITE_URL + page.path]:
            problems.append(f"{page.id}: canonical {canonical}")
        if alternates.get(page.lang) != SITE_URL + page.path or alternates.get(page.twin_lang) != SITE_URL + page.twin:
            problems.append(f"{page.id}: alternates {alternates}")
    assert not problems, "\n".join(problems)


def test_alternates_give_the_theme_no_sitemap_to_fetch(built_site):
    """Material fetches a sitemap.xml beside each link[rel=alternate] (an exact match): none may match."""
    for page in PAGES:
        html = (built_site / page.path / "index.html").read_text(encoding="utf-8")
        assert not re.search(r"""<link[^>]*\brel=["']?alternate["'\s>]""", html), page.id


def test_notebook_links_are_absolute(built_site):
    """A downloaded notebook is opened alone: its links lead to the deployed site (or another host)."""
    notebooks = sorted(built_site.rglob("*.ipynb"))
    assert notebooks
    problems = []
    for notebook in notebooks:
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            for url in MARKDOWN_LINK.findall(CODE.sub("", "".join(cell["source"]))):
                if not re.match(r"^(https?:|mailto:|#)", url):
                    problems.append(f"{notebook.relative_to(built_site)}: {url}")
    assert not problems, "\n".join(problems)


def test_no_page_names_the_builders_machine(built_site):
    """Only NMB_SITE_URL makes links absolute (mkdocs.yml has no address of its own): a site built and
    copied to any host never links back to 127.0.0.1 or localhost."""
    named = [str(file.relative_to(built_site)) for file in built_site.rglob("*")
             if file.suffix in (".html", ".xml", ".json", ".ipynb", ".js")
             and re.search(r"https?://(?:127\.0\.0\.1|localhost)\b", file.read_text(encoding="utf-8", errors="replace"))]
    assert named == []


def test_without_an_address_the_configuration_has_none(monkeypatch):
    from mkdocs.config import load_config

    monkeypatch.delenv("NMB_SITE_URL", raising=False)
    assert load_config(str(ROOT / "mkdocs.yml")).site_url is None
