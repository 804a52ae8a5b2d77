"""The render cache: a hit gives what highlighting or indexing would have given, and nothing else does."""

from __future__ import annotations

import functools
from types import SimpleNamespace

import markdown
from material.plugins.search.plugin import SearchIndex
from pymdownx.highlight import Highlight

from engine.render_cache import Store, cached_highlight, cached_search_entries

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
