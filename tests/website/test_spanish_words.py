"""No English on a Spanish page: each built Spanish page, read in headless Chromium as a screen reader
reads it (its accessibility tree: names and text, every collapsed block and tab opened, and the
descriptions a figure carries), holds no English word outside code and outputs.

A word is English when hunspell's en_US dictionary accepts it and its es_ES dictionary does not, and neither
the style guide's kept terms, the glossary's Spanish column nor tests/language/words.txt (names) lets Spanish
prose use it: `tests.language.spanish.classify`, the rule the Spanish sources are held to. Left out, as
tests/language leaves them out of the sources: code blocks (and their titles, file paths), inline code
and outputs (`pre`, `code`, `.nmb-output`), the table of contents (the headings again, without their
code marks), the text of links to other sites (a cited work keeps its published title), the glossary's
column headed "Inglés", and a ruled-out English word that glosses its Spanish form, «consulta (query)».
A word in capitals is an acronym or a constant (GB, BLOCK), not prose; NAMES holds the few other names.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from tests.language.spanish import classify, glossary, words

from .support import site_pages

ROOT = Path(__file__).resolve().parents[2]
PAGES = [page for page in site_pages(ROOT / "docs") if page.lang == "es"]
# Names that are English words (the theme's name in the footer links to its site, so it is left out already):
NAMES = ("English",)  # the language selector names each language in that language
# Everything a reader could open shown (collapsed blocks, every tab), and what is not prose taken away.
PREPARE_JS = """
() => {
  document.querySelectorAll("details").forEach(d => { d.open = true; });
  const style = document.createElement("style");
  style.textContent = ".tabbed-content > .tabbed-block { display: block !important; }";
  document.head.appendChild(style);
  for (const table of document.querySelectorAll("article table")) {
    const heads = [...table.querySelectorAll("thead th")].map(th => th.textContent.trim());
    const column = heads.indexOf("Inglés");
    if (column >= 0) table.querySelectorAll("tr").forEach(row => row.children[column]?.remove());
  }
  const away = [...document.querySelectorAll("a[href]")].filter(a => a.host && a.host !== location.host);
  const code = "pre, code, .nmb-output, .highlight .filename";  // a code block's title is its file's path
  // The table of contents repeats the headings, which are read in the article with their code.
  [...document.querySelectorAll(code + ", .md-nav--secondary"), ...away].forEach(e => e.remove());
}
"""
# What the accessibility snapshot leaves out: descriptions (a figure's <desc>, a tooltip's title).
DESCRIPTIONS_JS = """
() => [...document.querySelectorAll("body [title], body [aria-description], body svg title, body svg desc")]
  .map(e => ["title", "desc"].includes(e.localName) && e.namespaceURI.endsWith("svg") ? e.textContent
       : (e.getAttribute("title") || e.getAttribute("aria-description") || ""))
"""
ROLE = re.compile(r'^(/?[\w-]+)(?: ("(?:[^"\\]|\\.)*"))?')


def named(entry: str) -> tuple[str, list[str]]:
    """An entry of an aria snapshot, `role "name" [attributes]`: its role, and its name if it has one."""
    match = ROLE.match(entry)
    return (match[1], [json.loads(match[2])] if match[2] else []) if match else ("", [entry])


def snapshot_texts(node) -> list[str]:
    """Every name and text in an aria snapshot (Playwright's YAML, parsed), addresses (`/url`) left out."""
    if isinstance(node, list):
        return [text for item in node for text in snapshot_texts(item)]
    if isinstance(node, dict):
        found = []
        for key, value in node.items():
            role, name = named(key)
            if role != "/url":
                found += name + ([str(value)] if isinstance(value, (str, int, float)) else snapshot_texts(value))
        return found
    return named(node)[1] if isinstance(node, str) else []


def page_texts(reader, server, path: str) -> list[str]:
    """What a reader of the page at `path` hears, but its code and outputs."""
    visit = reader.open(server.origin, server.url(path))
    try:
        assert not any(" answered " in failure for failure in visit.failed), visit.failed
        visit.page.evaluate(PREPARE_JS)
        texts = snapshot_texts(yaml.safe_load(visit.page.locator("body").aria_snapshot()))
        return texts + visit.page.evaluate(DESCRIPTIONS_JS)
    finally:
        visit.close()


def unglossed(text: str) -> str:
    """`text` without the ruled-out words that gloss their preferred form in parentheses (tests/language)."""
    rules, _ = glossary()
    lower, spans = text.lower(), []
    for rule in rules:
        if rule.needle in lower:
            spans += [match.span() for match in rule.pattern.finditer(text)
                      if rule.glossed(text[max(0, match.start() - 80):match.start()])]
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def prose_words(text: str) -> list[str]:
    """The words of `text` that could be English prose: names, capitals and glosses left out."""
    for name in NAMES:
        text = text.replace(name, " ")
    return [word for word in words(unglossed(text)) if not word.isupper()]


def english_words(texts: dict[str, list[str]]) -> dict[str, dict[str, str]]:
    """Per page, each English word and the first text it appears in."""
    said = {text: prose_words(text) for found in texts.values() for text in found}
    english, _ = classify({word for found in said.values() for word in found})
    pages = {}
    for path, found in texts.items():
        for text in found:
            for word in said[text]:
                if word in english:
                    pages.setdefault(path, {}).setdefault(word, " ".join(text.split())[:160])
    return pages


@pytest.fixture(scope="module")
def spanish_texts(reader, server) -> dict[str, list[str]]:
    return {page.path: page_texts(reader, server, page.path) for page in PAGES}


def test_no_english_word_on_a_spanish_page(spanish_texts):
    found = english_words(spanish_texts)
    report = [f"{path}: {', '.join(sorted(hits))}\n" + "\n".join(f"    {word}: «{text}»" for word, text in hits.items())
              for path, hits in sorted(found.items())]
    assert not found, (f"English words on {len(found)} Spanish pages (write them in Spanish; a name goes in "
                       "tests/language/words.txt):\n" + "\n".join(report))


def test_the_reading_sees_figures_and_finds_english(spanish_texts):
    """Non-vacuous: a figure's title and description are read, code is not, and an English word is caught."""
    theory01 = " ".join(spanish_texts["es/phase-25/theory/01-dispatcher-and-aten/"])
    assert "Pila de claves de aten::addmm" in theory01 and "include set del hilo" in theory01
    assert "def stack()" not in theory01
    assert english_words({"page": ["El grafo the tensor, con 4 GB y un BLOCK"]}) == {
        "page": {"the": "El grafo the tensor, con 4 GB y un BLOCK"}}
