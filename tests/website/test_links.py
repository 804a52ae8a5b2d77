"""Every internal link and anchor of the built site resolves, in both languages; images have alt text;
no page or stylesheet loads anything from another host."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .links import Site
from .support import SITE_URL, site_pages

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(built_site) -> Site:
    return Site(built_site, SITE_URL)


@pytest.fixture(scope="module")
def fixture(fixture_site) -> Site:
    return Site(fixture_site, SITE_URL)


def test_every_page_is_built_in_both_languages(built_site):
    missing = [p.id for p in site_pages(ROOT / "docs") if not (built_site / p.path / "index.html").is_file()]
    assert not missing


def test_internal_links_and_anchors_resolve(site, fixture):
    for built in (site, fixture):
        assert len(built.pages()) > 2
        problems = [problem for page in built.pages() for problem in built.link_problems(page)]
        assert not problems, "\n".join(problems)


def test_notebook_links_resolve(site):
    """The links of every notebook's Markdown cells: the 14 lab notebooks (7 labs, 2 languages) and the 14
    workspaces, each beside its workspace page."""
    assert len([n for n in site.notebooks() if n.name != "workspace.ipynb"]) == 14
    assert len(site.notebooks()) == 28
    problems = [problem for notebook in site.notebooks() for problem in site.notebook_problems(notebook)]
    assert not problems, "\n".join(problems)


def test_search_index_entries_resolve(site):
    assert not site.search_problems(), "\n".join(site.search_problems())


def test_images_have_text_alternatives(site, fixture):
    assert fixture.parsed(fixture.dir / "index.html").images, "the fixture page shows an image"
    for built in (site, fixture):
        problems = [problem for page in built.pages() for problem in built.image_problems(page)]
        assert not problems, "\n".join(problems)


def test_nothing_loads_from_another_host(site, fixture):
    for built in (site, fixture):
        problems = built.stylesheet_problems() + [p for page in built.pages() for p in built.link_problems(page)
                                                  if "another host" in p]
        assert not problems, "\n".join(problems)


def test_the_checker_finds_each_kind_of_problem(tmp_path):
    """A hand-made site with one problem of each kind: the checks above are not vacuous."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text('<h2 id="here">A</h2><a href="#here">ok</a>', encoding="utf-8")
    (tmp_path / "index.html").write_text(
        '<a href="a/">ok</a> <a href="a/#here">ok</a> <a href="a/#gone">anchor</a> <a href="b/">page</a>'
        '<a href="https://example.org/">an outside link is fine</a>'
        '<script src="https://cdn.example.org/x.js"></script> <img src="a/x.png">', encoding="utf-8")
    (tmp_path / "style.css").write_text("@font-face { src: url(https://fonts.example.org/f.woff2) }", encoding="utf-8")
    site = Site(tmp_path, "https://example.invalid/course/")
    problems = site.link_problems(tmp_path / "index.html")
    assert [p.split(": ", 1)[1] for p in problems] == [
        "'a/#gone': no id 'gone' in a/index.html",
        "'b/' leads to a missing file (b/index.html)",
        "<script src='https://cdn.example.org/x.js'> loads from another host",
        "'a/x.png' leads to a missing file (a/x.png)",
    ]
    assert site.link_problems(tmp_path / "a" / "index.html") == []
    assert site.image_problems(tmp_path / "index.html") == ["index.html: image 'a/x.png' has no alt text"]
    assert site.stylesheet_problems() == ["style.css loads from another host"]
    cells = ['## Here <a id="here"></a>\n\n[ok](#here) [ok](../a/#here) [anchor](#gone) ![missing](b.png)',
             "`[code](#not-a-link)`\n\n```python\nx[0](#neither)\n```\n\n<a href=\"../a/#gone\">page anchor</a>"]
    (tmp_path / "a" / "nb.ipynb").write_text(json.dumps({"cells": [
        {"cell_type": "markdown", "source": text} for text in cells] + [
        {"cell_type": "code", "source": "[code](#nowhere)"}]}), encoding="utf-8")
    assert [p.split(": ", 1)[1] for p in site.notebook_problems(tmp_path / "a" / "nb.ipynb")] == [
        "'#gone': no cell keeps the anchor 'gone'",
        "'b.png' leads to a missing file (a/b.png)",
        "'../a/#gone': no id 'gone' in a/index.html",
    ]
