"""Every built page's markup: a strict HTML5 parse with no error, the rules a validator checks that
the theme or the renderer could break, and no script or stylesheet a page does not use."""

from __future__ import annotations

import functools
from pathlib import Path

import html5lib
import pytest

LABELABLE = {"button", "input", "meter", "output", "progress", "select", "textarea"}
# Loaded only by pages that use them: the asset, and what in the page's HTML uses it.
USED_BY = {"readers.js": "<pre"}
NEVER_LOADED = ("_markdown_exec_pyodide",)


def html_pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def parse(text: str):
    """(tree, parse errors) of a page parsed as the HTML standard says; the tree has no namespaces."""
    parser = html5lib.HTMLParser(tree=html5lib.getTreeBuilder("etree"), namespaceHTMLElements=False)
    tree = parser.parse(text)
    return tree, [f"line {line}, column {column}: {code} {data or ''}".rstrip()
                  for (line, column), code, data in parser.errors]


@functools.lru_cache(maxsize=None)
def parsed_page(page: Path):
    """parse() of a built page's file, once per test process."""
    return parse(page.read_text(encoding="utf-8"))


def rule_problems(tree) -> list[str]:
    """Duplicate ids, labels for no control, invalid tabindex and autocomplete, empty table headers."""
    elements = list(tree.iter())
    ids: dict[str, object] = {}
    problems = []
    for element in elements:
        if not isinstance(element.tag, str):
            continue  # a comment
        name = element.get("id")
        if name is not None:
            if name in ids:
                problems.append(f"id {name!r} used twice")
            ids[name] = element
    for element in elements:
        if not isinstance(element.tag, str):
            continue
        target = element.get("for")
        if element.tag == "label" and target is not None:
            control = ids.get(target)
            if control is None or control.tag not in LABELABLE or control.get("type") == "hidden":
                problems.append(f"<label for={target!r}> names no form control")
        tabindex = element.get("tabindex")
        if tabindex is not None and not tabindex.lstrip("-").isdigit():
            problems.append(f"<{element.tag} tabindex={tabindex!r}>: not an integer")
        if element.tag == "input" and element.get("type") in ("checkbox", "radio") and "autocomplete" in element.attrib:
            problems.append(f"<input type={element.get('type')!r} id={element.get('id')!r}> has autocomplete")
        if element.tag == "th" and not "".join(element.itertext()).strip() and not element.get("aria-label"):
            problems.append("empty table header cell")
    return problems


def asset_problems(text: str, tree) -> list[str]:
    """Scripts and stylesheets the page loads without using them."""
    loaded = [e.get("src") for e in tree.iter("script") if e.get("src")]
    loaded += [e.get("href") for e in tree.iter("link") if "stylesheet" in (e.get("rel") or "").split()]
    problems = [f"loads {url}" for url in loaded if any(name in url for name in NEVER_LOADED)]
    for asset, use in USED_BY.items():
        if any(url.endswith(asset) for url in loaded) and use not in text:
            problems.append(f"loads {asset} and has no {use}")
    return problems


def test_every_page_parses_as_valid_html(built_site, fixture_site):
    problems = []
    for site in (built_site, fixture_site):
        for page in html_pages(site):
            text = page.read_text(encoding="utf-8")
            tree, errors = parsed_page(page)
            name = page.relative_to(site).as_posix()
            problems += [f"{name}: {problem}" for problem in errors + rule_problems(tree) + asset_problems(text, tree)]
    assert not problems, "\n".join(problems[:60]) + f"\n({len(problems)} in all)"


@pytest.mark.parametrize("markup, problem", [
    ("<p><p>a</p></p>", "unexpected-end-tag"),
    ('<input type="checkbox" id="t" autocomplete="off"><label for="t">t</label>', "has autocomplete"),
    ('<label for="nothing">t</label>', "names no form control"),
    ('<label tabindex="">t</label>', "not an integer"),
    ('<p id="a"></p><p id="a"></p>', "used twice"),
    ("<table><tr><th></th><th>b</th></tr></table>", "empty table header"),
])
def test_the_markup_checks_catch_what_they_look_for(markup, problem):
    tree, errors = parse(f"<!doctype html><html lang=en><title>t</title>{markup}")
    assert any(problem in found for found in errors + rule_problems(tree)), (errors, rule_problems(tree))


def test_the_renderer_writes_no_nested_paragraph():
    """An output in a CPU/GPU tab: its provenance line is a paragraph of its own, never inside another."""
    import markdown

    from engine.site import render

    tab = render.output("tensor([1.])", "Output built on CPU.", "en")
    html = markdown.markdown(render.tabs(tab, tab, "NVIDIA H100", "en"),
                             extensions=["attr_list", "md_in_html", "pymdownx.superfences", "pymdownx.tabbed"])
    _, errors = parse(f"<!doctype html><html lang=en><title>t</title>{html}")
    assert errors == [] and html.count('<p class="nmb-provenance">Output built on CPU.</p>') == 2, html
