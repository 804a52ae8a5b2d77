"""Two rendering steps that are pure functions of their inputs, kept on disk between builds: the
Pygments highlighting of a code block (pymdownx.highlight) and the search entries Material's search
plugin makes from a page's HTML.

Each result is keyed by everything it depends on (the block and every option, or the page's HTML, URL,
title, metadata and table of contents, and the versions of Pygments, pymdown-extensions and Material),
so a hit returns what the step would have computed. A rebuild that changes nothing highlights and
parses nothing, and the two languages share the highlighting of a block they both show. The store is
`.cache/render.json`, written whole after each build with the entries that build used.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from importlib import metadata
from pathlib import Path

from material.plugins.search.plugin import SearchIndex
from pymdownx.highlight import Highlight

from engine import atomic

VERSIONS = tuple(metadata.version(name) for name in ("pygments", "pymdown-extensions", "mkdocs-material"))


class Store:
    """Results by key, read from one JSON file on first use; `save` keeps those used since it was read."""

    def __init__(self, path: Path):
        self.open(path)

    def open(self, path: Path) -> None:
        """Read from and write to `path` from now on (nothing of another file is kept)."""
        self.path = path
        self.stored: dict[str, object] | None = None
        self.used: dict[str, object] = {}

    def get(self, key: str):
        if self.stored is None:
            try:
                self.stored = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                self.stored = {}  # none yet, or unreadable: every step runs and the file is written anew
        if key in self.stored:
            self.used[key] = self.stored[key]
        return self.used.get(key)

    def put(self, key: str, value) -> None:
        self.used[key] = value

    def save(self) -> None:
        if self.used != self.stored:
            atomic.write_text(self.path, json.dumps(self.used))
            self.stored = dict(self.used)


def key(*parts: object) -> str:
    return hashlib.sha256(repr((VERSIONS, parts)).encode()).hexdigest()[:32]


def _toc(items) -> list:
    return [(item.id, item.url, item.title, item.level, _toc(item.children)) for item in items]


def cached_highlight(original, store: Store):
    """Highlight.highlight, answered from `store` for a block (inline code and HTML titles run as before:
    the first is an element, the second writes to the page's stash)."""
    signature = inspect.signature(original)

    def highlight(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        arguments = {name: value for name, value in bound.arguments.items() if name != "self"}
        if arguments["inline"] or (arguments["title"] and self.title_mode == "html"):
            return original(self, *args, **kwargs)
        settings = {name: value for name, value in vars(self).items() if name != "md"}
        found = key("highlight", sorted(settings.items()), sorted(arguments.items()))
        if (html := store.get(found)) is None:
            html = original(self, *args, **kwargs)
            store.put(found, html)
        return html

    highlight.original = original
    return highlight


def cached_search_entries(original, store: Store):
    """SearchIndex.add_entry_from_context, answered from `store` for a page seen before."""

    def add_entry_from_context(self, page):
        found = key("search", sorted(self.config.items()), page.url, page.title, sorted(page.meta.items()),
                    _toc(page.toc), page.content)
        if (entries := store.get(found)) is None:
            before = len(self.entries)
            original(self, page)
            entries = self.entries[before:]
            store.put(found, entries)
        else:
            self.entries.extend(entries)

    add_entry_from_context.original = original
    return add_entry_from_context


STORE = Store(Path(".cache", "render.json"))  # its file is set by install()


def install(root: Path) -> None:
    """Route both steps through STORE, kept in `root`/.cache/render.json."""
    if not hasattr(Highlight.highlight, "original"):
        Highlight.highlight = cached_highlight(Highlight.highlight, STORE)
        SearchIndex.add_entry_from_context = cached_search_entries(SearchIndex.add_entry_from_context, STORE)
    path = root / ".cache" / "render.json"
    if STORE.path != path:
        STORE.open(path)
