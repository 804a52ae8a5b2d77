"""The render cache: a hit gives what highlighting or indexing would have given, and nothing else does."""

from __future__ import annotations

import functools
from types import SimpleNamespace

import markdown
import pytest
from markdown.extensions.toc import slugify
from material.plugins.search.plugin import SearchIndex
from pymdownx.highlight import Highlight

from engine.site.render_cache import Store, cached_convert, cached_highlight, cached_search_entries

SOURCE = "def f(x):\n    return x + 1\n"


def counting(function, calls: list):
    @functools.wraps(function)
    def counted(*args, **kwargs):
        calls.append(args)
        return function(*args, **kwargs)
    return counted


def test_highlight_runs_once_per_block_and_options_even_across_processes(tmp_path):
    raw, calls = getattr(Highlight.highlight, "original", Highlight.highlight), []
    highlighter = Highlight(markdown.Markdown())
    store = Store(tmp_path / "render.json")
    highlight = cached_highlight(counting(raw, calls), store)
    first = highlight(highlighter, SOURCE, "python")
    assert first == raw(highlighter, SOURCE, "python") and 'class="highlight"' in first
    assert highlight(highlighter, SOURCE, "python") == first and len(calls) == 1
    store.save()
    reread = cached_highlight(counting(raw, calls), Store(tmp_path / "render.json"))
    assert reread(highlighter, SOURCE, "python") == first and len(calls) == 1
    assert reread(highlighter, SOURCE, "python", linestart=1) != first and len(calls) == 2  # another option
    highlighter.linenums = True  # another setting of the extension
    assert reread(highlighter, SOURCE, "python") != first and len(calls) == 3


def test_search_entries_come_back_for_the_same_page_only(tmp_path):
    raw, calls = getattr(SearchIndex.add_entry_from_context, "original", SearchIndex.add_entry_from_context), []
    add = cached_search_entries(counting(raw, calls), Store(tmp_path / "render.json"))
    page = SimpleNamespace(meta={}, toc=[], url="page/", title="Page",
                           content='<h1 id="page">Page</h1><p>storage (almacenamiento)</p>')
    fresh, cached = SearchIndex(), SearchIndex()
    add(fresh, page)
    add(cached, page)
    assert cached.entries == fresh.entries and fresh.entries and len(calls) == 1
    raw(reference := SearchIndex(), page)
    assert cached.entries == reference.entries
    add(SearchIndex(), SimpleNamespace(**{**vars(page), "content": page.content.replace("storage", "view")}))
    assert len(calls) == 2


def test_an_unreadable_store_is_an_empty_one(tmp_path):
    path = tmp_path / "render.json"
    path.write_text('{"truncated": ')
    store = Store(path)
    assert store.get("truncated") is None
    store.put("key", "value")
    store.save()
    assert Store(path).get("key") == "value"


def test_a_converted_output_comes_back_for_the_same_markdown_and_prefix_only(tmp_path):
    from markdown_exec._internal.rendering import MarkdownConverter

    raw, calls = getattr(MarkdownConverter.convert, "original", MarkdownConverter.convert), []
    convert = cached_convert(counting(raw, calls), Store(tmp_path / "render.json"))
    page = markdown.Markdown(extensions=["toc", "pymdownx.tabbed"], extension_configs={
        "pymdownx.tabbed": {"alternate_style": True}})
    plain, tabs = "Some **bold** output.", '=== "CPU"\n\n    cpu\n\n=== "GPU"\n\n    gpu\n'
    first = convert(MarkdownConverter(page), plain)
    assert convert(MarkdownConverter(page), plain) == first == raw(MarkdownConverter(page), plain)
    assert len(calls) == 1 and "<strong>bold</strong>" in first
    ids = convert(MarkdownConverter(page), tabs, id_prefix="one-")
    assert 'id="one-__tabbed_1_1"' in ids and convert(MarkdownConverter(page), tabs, id_prefix="one-") == ids
    assert len(calls) == 2
    other = convert(MarkdownConverter(page), tabs, id_prefix="two-")  # its ids carry the prefix
    assert 'id="two-__tabbed_1_1"' in other and len(calls) == 3
    headed = "# A heading\n\ntext"  # headings go to the page's table of contents: converted every time
    convert(MarkdownConverter(page), headed)
    convert(MarkdownConverter(page), headed)
    assert len(calls) == 5


def test_a_notebook_is_written_as_nbformat_writes_it_and_validated_once(tmp_path, monkeypatch):
    import nbformat
    from nbformat import v4

    from engine.jupyter.notebooks import code_cell, markdown_cell, to_json

    made = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        markdown_cell("# A lab", id="cell-0"),
        code_cell("print(1)", id="cell-1", execution_count=1,
                  outputs=[{"output_type": "stream", "name": "stdout", "text": "1\n"}])]}
    cells = [v4.new_markdown_cell("# A lab"), v4.new_code_cell("print(1)", execution_count=1, outputs=[
        v4.new_output("stream", name="stdout", text="1\n")])]
    for number, cell in enumerate(cells):
        cell.id = f"cell-{number}"
    store, expected = Store(tmp_path / "render.json"), nbformat.writes(v4.new_notebook(cells=cells))
    assert to_json(made, store) == expected
    monkeypatch.setattr(nbformat, "validate", lambda *args, **kwargs: pytest.fail("validated again"))
    assert to_json(made, store) == expected
    made["cells"][0]["cell_type"] = "heading"  # not a cell of nbformat 4: the new notebook is validated
    monkeypatch.undo()
    with pytest.raises(nbformat.ValidationError):
        to_json(made, store)


def test_settings_that_differ_between_processes_are_never_keyed(tmp_path):
    from markdown_exec._internal.rendering import MarkdownConverter

    raw, calls = getattr(MarkdownConverter.convert, "original", MarkdownConverter.convert), []
    convert = cached_convert(counting(raw, calls), Store(tmp_path / "render.json"))
    by_name = markdown.Markdown(extensions=["toc"], extension_configs={"toc": {
        "slugify": functools.partial(slugify, separator="_")}})
    closure = markdown.Markdown(extensions=["toc"], extension_configs={"toc": {"slugify": lambda value, sep: value}})
    for page in (by_name, by_name, closure, closure):
        convert(MarkdownConverter(page), "Some **bold** output.")
    assert len(calls) == 3  # the partial is keyed by function and arguments; the lambda is never keyed
