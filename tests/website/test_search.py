"""Search in each language: a small index (engine/site/search_text.py) that a page asks for only once the
reader opens search, that still finds every glossary term's pages, and only pages of the reader's language.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from engine.source.translations import twin

from .support import NOTEBOOK_PAGES

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = ROOT / "docs" / "glossary.md"
INDEX_BUDGET = 150 * 1024  # bytes of each language's index
# What search does not keep of an article: what snippets show, the theme's own links and buttons,
# and the labs' run box (the template's, as the buttons are).
LEFT_OUT = ".highlight, .nmb-figure, .tabbed-labels, .nmb-provenance, .headerlink, .nmb-notebooks, .nmb-run-box"
LANGS = ("en", "es")
# Material's own search worker, given a language's index, answering each query as the search box would.
SEARCH_JS = """
async queries => {
  const config = JSON.parse(document.getElementById("__config").textContent);
  const base = new URL(config.base, location.href);
  const index = await (await fetch(new URL("search/search_index.json", base))).json();
  const worker = new Worker(new URL(config.search, location.href));
  const next = () => new Promise(resolve => worker.addEventListener("message", e => resolve(e.data), {once: true}));
  worker.postMessage({type: 0, data: {...index, options: {suggest: false}}});
  await next();
  const found = {};
  for (const query of queries) {
    worker.postMessage({type: 2, data: query});
    const {data} = await next();
    found[query] = [...new Set(data.items.flat().map(doc => doc.location.split("#")[0]))];
  }
  worker.terminate();
  return found;
}
"""


def language_root(site: Path, lang: str) -> Path:
    return site if lang == "en" else site / lang


def glossary_terms(lang: str) -> list[str]:
    """The terms of the glossary's table, in `lang`'s column, as a reader types them: each alternative
    of "a / b" on its own, a gloss in parentheses left out."""
    text = (GLOSSARY if lang == "en" else twin(GLOSSARY, lang)).read_text(encoding="utf-8")
    table = text.split("\n## ")[1]  # the section of the terms, the first after the title
    cells = [row.split(" | ")[LANGS.index(lang)].strip("| ") for row in table.splitlines()[4:] if row.startswith("| ")]
    return sorted({re.sub(r"\s*\(.*?\)", "", term) for cell in cells for term in cell.split(" / ")})


@functools.lru_cache(maxsize=None)
def prose(page: Path) -> str:
    """What search keeps of a built page, as plain text: the article without what its snippets show."""
    article = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").article
    for shown in article.select(LEFT_OUT):
        shown.decompose()
    return " ".join(article.get_text(" ").split()).lower()


def language_pages(site: Path, lang: str) -> dict[str, Path]:
    """The built pages of `lang` that search indexes (notebook and workspace pages left out), by the name
    search gives them: "" for the home page, "week-09/"."""
    root = language_root(site, lang)
    pages = {}
    for page in sorted(root.rglob("index.html")):
        name = page.parent.relative_to(root).as_posix()
        if not set(NOTEBOOK_PAGES) & set(page.parts) and not (lang == "en" and name.split("/")[0] == "es"):
            pages["" if name == "." else name + "/"] = page
    return pages


def separator(root: Path = ROOT) -> str:
    """The characters search splits words at (mkdocs.yml's search `separator`), as a regex class."""
    return re.search(r"separator: '(.+)'", (root / "mkdocs.yml").read_text(encoding="utf-8")).group(1).rstrip("+")


def pages_using(site: Path, lang: str, term: str) -> set[str]:
    """The pages of `lang` whose prose holds `term` as whole words, words as search splits them: at its
    separators, punctuation at either end trimmed (`cuda/Blas.cpp` is one word, `(BLAS).` holds BLAS)."""
    split = separator()
    words = re.compile(rf"(?:^|{split})\W*{re.escape(term.lower())}\W*(?={split}|$)")
    return {name for name, page in language_pages(site, lang).items() if words.search(prose(page))}


def search_all(reader, server, lang: str, queries: list[str]) -> dict[str, list[str]]:
    """query -> the pages (as search names them) that Material's search worker returns for it in `lang`."""
    visit = reader.open(server.origin, server.url("" if lang == "en" else f"{lang}/"))
    try:
        return visit.page.evaluate(SEARCH_JS, queries)
    finally:
        visit.close()


@pytest.mark.parametrize("lang", LANGS)
def test_each_index_is_small(built_site, lang):
    index = language_root(built_site, lang) / "search" / "search_index.json"
    assert index.stat().st_size < INDEX_BUDGET, f"{index}: {index.stat().st_size} bytes, over {INDEX_BUDGET}"
    docs = json.loads(index.read_text(encoding="utf-8"))["docs"]
    assert not [d["location"] for d in docs if "<pre" in d["text"]], "a code listing or an output in the index"


@pytest.mark.parametrize("lang", LANGS)
def test_search_finds_every_glossary_terms_pages(reader, server, built_site, lang):
    """Each term of the glossary finds every page whose prose uses it, the glossary among them."""
    terms = glossary_terms(lang)
    found = search_all(reader, server, lang, terms)
    missed = {}
    for term in terms:
        expected = pages_using(built_site, lang, term)
        assert "glossary/" in expected, f"{term!r}: the glossary's own text does not hold it"
        if expected - set(found[term]):
            missed[term] = sorted(expected - set(found[term]))
    assert not missed, f"{len(missed)} of {len(terms)} terms miss pages that use them: {missed}"


def test_search_finds_inline_code(reader, server):
    """A name written only as inline code, as `addmm` and `AutogradCPU` are, finds the pages that write it."""
    found = search_all(reader, server, "en", ["addmm", "AutogradCPU"])
    assert "phase-25/theory/01-dispatcher-and-aten/" in found["addmm"]
    assert "phase-25/theory/01-dispatcher-and-aten/" in found["AutogradCPU"]


def common_word(site_dir: Path) -> str:
    """A word that both languages' search indexes contain (so filtering by language shows)."""
    def words(lang: str) -> Counter:
        docs = json.loads((language_root(site_dir, lang) / "search" / "search_index.json").read_text(encoding="utf-8"))
        return Counter(w.lower() for d in docs["docs"] for w in re.findall(r"[A-Za-z]{5,}", d["title"] + " " + d["text"]))

    english, spanish = words("en"), words("es")
    shared = [w for w, _ in (english + spanish).most_common() if english[w] and spanish[w]]
    assert shared, "no word appears in both languages' search indexes"
    return shared[0]


def search(reader, server, lang: str, query: str) -> list[str]:
    """The result links of typing `query` into the search box of the home page in `lang`. The page asks
    for its index only once the reader clicks the box; the visit must have met no problem."""
    visit = reader.open(server.origin, server.url("" if lang == "en" else f"{lang}/"))
    try:
        page = visit.page
        visit.settle()
        index = server.url(("" if lang == "en" else f"{lang}/") + "search/search_index.json")
        assert index not in visit.urls(), "the index was loaded before search was opened"
        page.locator(".md-search__input").click()
        page.locator(".md-search__input").press_sequentially(query)
        page.wait_for_selector(".md-search-result__item", timeout=15000)
        links = page.eval_on_selector_all(".md-search-result__link", "links => links.map(a => a.href)")
        assert index in visit.urls() and visit.problems() == []
        return links
    finally:
        visit.close()


@pytest.mark.parametrize("lang", LANGS)
def test_search_returns_pages_in_the_readers_language_only(reader, server, built_site, lang):
    query = common_word(built_site)
    links = search(reader, server, lang, query)
    assert links, f"searching {query!r} found nothing"
    spanish = [link for link in links if link.startswith(server.url("es/"))]
    wrong = [link for link in links if (link in spanish) != (lang == "es")]
    assert not wrong, f"searching {query!r} in {lang} found pages of the other language: {wrong}"


def parenthesised_word(site: Path, lang: str) -> str:
    """A word that the prose of `lang`'s pages writes only inside parentheses, as in "storage (almacenamiento)"."""
    text = " ".join(prose(page) for page in language_pages(site, lang).values())
    inside = sorted(set(re.findall(r"\((\w{6,})\)", text)))
    only = [w for w in inside if not re.search(rf"(?<![\w(]){w}\b", text)]
    assert only, f"{lang}: no word appears only inside parentheses"
    return only[0]


@pytest.mark.parametrize("lang", LANGS)
def test_search_finds_a_word_written_in_parentheses(reader, server, built_site, lang):
    query = parenthesised_word(built_site, lang)
    assert search(reader, server, lang, query), f"searching {query!r} in {lang} found nothing"
