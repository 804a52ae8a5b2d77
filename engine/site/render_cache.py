"""Rendering steps that are pure functions of their inputs, kept on disk between builds: the Pygments
highlighting of a code block (pymdownx.highlight), markdown-exec's conversion of a block's output from
Markdown to HTML, and the search entries Material's search plugin makes from a page's HTML (each lab's
notebook, as nbformat writes it, is kept in the same store: engine/jupyter/notebooks.py).

Each result is keyed by everything it depends on (the block and every option; the output's Markdown,
the Markdown extensions and their settings, and the id prefix where the HTML holds one; or the page's
HTML, URL, title, metadata and table of contents; and the versions of Python and of the packages that
compute them), so a hit returns what the step would have computed. A rebuild that changes nothing
highlights and parses nothing, and converts only what cached_convert leaves out; the two languages
share the highlighting of a block they both show. The store is `.cache/render.json`, written whole
after each build with the entries that build used.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import platform
import re
from importlib import metadata
from pathlib import Path

from markdown_exec._internal import rendering
from markdown_exec._internal.rendering import MarkdownConverter
from material.plugins.search.plugin import SearchIndex
from pymdownx.highlight import Highlight

from engine.base import atomic
from engine.base.settings import Layout

VERSIONS = (platform.python_version(),) + tuple(metadata.version(name) for name in (
    "pygments", "pymdown-extensions", "mkdocs-material", "markdown", "markdown-exec"))


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


class Unstable(Exception):
    """A setting that cannot be written the same way in every process (a closure, a bound method, an
    object that keeps state): what depends on it is not cached."""


def stable(value):
    """`value` as plain data that reads the same in every process: module-level functions and classes
    by name, partials by function and arguments, extension objects by class and settings."""
    if isinstance(value, dict):
        return sorted((str(k), stable(v)) for k, v in value.items())
    if isinstance(value, (set, frozenset)):
        return sorted((stable(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [stable(v) for v in value]
    if hasattr(value, "getConfigs"):  # a Markdown extension object
        return (type(value).__module__, type(value).__qualname__, stable(value.getConfigs()))
    if isinstance(value, functools.partial):
        return ("partial", stable(value.func), stable(value.args), stable(value.keywords))
    if inspect.isfunction(value) or inspect.isclass(value) or inspect.isbuiltin(value):
        if "<locals>" in value.__qualname__:
            raise Unstable(value.__qualname__)
        return (value.__module__, value.__qualname__)
    if callable(value):
        raise Unstable(repr(type(value)))
    return value


EXEC_PREFIX = re.compile(r"exec-\d+--")  # markdown-exec's own prefixes, which count blocks up


def cached_convert(original, store: Store):
    """MarkdownConverter.convert (markdown-exec turning an output's Markdown into HTML, in a Markdown
    made like the page's), answered from `store`. The prefix it gives the HTML's ids (`exec-N--`, N
    counting blocks up) is kept with the entry, which serves another such prefix only when its HTML holds
    no id, so that none got the prefix. An output that holds a heading (markdown-exec passes those up to
    the page's table of contents), one whose conversion ran other blocks (it counted more than one), and
    one whose settings cannot be written the same way in every process are always converted."""

    def convert(self, text, stash=None, id_prefix=None):
        counter = MarkdownConverter.counter
        prefix = id_prefix if id_prefix is not None else f"exec-{counter + 1}--"
        extensions = rendering.markdown_config.exts or list(self._original_md.registeredExtensions)
        try:
            found = key("convert", text, sorted((stash or {}).items()), self._update_toc,
                        stable(extensions), stable(rendering.markdown_config.exts_config or {}))
        except Unstable:
            return original(self, text, stash, id_prefix)
        entry = store.get(found)
        if entry is not None and (entry["prefix"] == prefix or (
                entry["prefix"] not in entry["html"] and EXEC_PREFIX.fullmatch(entry["prefix"])
                and EXEC_PREFIX.fullmatch(prefix))):
            MarkdownConverter.counter += 1  # as a conversion would have counted it
            markup = rendering.Markup(entry["html"])  # noqa: S704 - HTML markdown-exec made
            if self._update_toc:
                rendering._register_headings_processors(self._original_md)
                self._report_headings(markup, self._original_md)  # no headings: records that there are none
            return markup
        markup = original(self, text, stash, id_prefix)
        headings = self._original_md.treeprocessors[rendering.InsertHeadings.name].headings.get(markup) \
            if self._update_toc else []
        if not headings and MarkdownConverter.counter == counter + 1:
            store.put(found, {"html": str(markup), "prefix": prefix})
        return markup

    convert.original = original
    return convert


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


STORE = Store(Layout(Path()).render)  # its file is set by install()


def install(root: Path) -> None:
    """Route the three steps through STORE, kept in `root`/.cache/render.json."""
    if not hasattr(Highlight.highlight, "original"):
        Highlight.highlight = cached_highlight(Highlight.highlight, STORE)
        MarkdownConverter.convert = cached_convert(MarkdownConverter.convert, STORE)
        SearchIndex.add_entry_from_context = cached_search_entries(SearchIndex.add_entry_from_context, STORE)
    path = Layout(root).render
    if STORE.path != path:
        STORE.open(path)
