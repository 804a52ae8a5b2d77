"""markdown-exec runs every exec block; engine/site/render_cache.py answers its conversions of outputs from the
render cache, and for that reads parts of markdown-exec that are not its public API. This is that contract,
written down: an upgrade of markdown-exec that changes any of it fails here, naming what changed, before a
build can cache a conversion wrongly."""

from __future__ import annotations

import inspect
from pathlib import Path

import markdown
from markdown_exec._internal import rendering
from markdown_exec._internal.rendering import MarkdownConverter

from engine.site import render_cache

ROOT = Path(__file__).resolve().parents[2]


def pinned(package: str) -> str:
    line = next(line for line in (ROOT / "requirements.txt").read_text().splitlines() if line.startswith(package + "=="))
    return line.split("==")[1].strip()


def test_the_version_the_contract_was_read_from_is_the_pinned_one():
    from importlib.metadata import version

    assert version("markdown-exec") == pinned("markdown-exec"), (
        "markdown-exec changed: read its rendering module again against the checks below and "
        "engine/site/render_cache.py")


def test_the_internals_the_render_cache_reads_are_there():
    assert list(inspect.signature(MarkdownConverter.convert).parameters) == ["self", "text", "stash", "id_prefix"]
    assert isinstance(MarkdownConverter.counter, int)  # ids are prefixed `exec-<counter>--`
    for name in ("_original_md", "_update_toc", "_report_headings"):
        assert name in inspect.getsource(MarkdownConverter), f"MarkdownConverter.{name} is gone"
    for name in ("markdown_config", "Markup", "_register_headings_processors", "InsertHeadings", "_id_prefix"):
        assert hasattr(rendering, name), f"markdown_exec._internal.rendering.{name} is gone"
    assert hasattr(rendering.markdown_config, "exts") and hasattr(rendering.markdown_config, "exts_config")
    assert isinstance(rendering.InsertHeadings.name, str)


def test_the_id_prefix_is_the_one_the_cache_expects():
    """markdown-exec numbers the ids of each output's HTML `exec-N--`, N counting conversions; the cache
    serves an entry under another prefix only when both are of that form (render_cache.EXEC_PREFIX)."""
    source = inspect.getsource(rendering._id_prefix)
    assert 'f"exec-{MarkdownConverter.counter}--"' in source
    assert render_cache.EXEC_PREFIX.fullmatch("exec-12--")


def test_a_conversion_through_the_cache_is_the_conversion(tmp_path):
    """An output markdown-exec converted, answered from the cache the second time, gives the same HTML and
    counts as a conversion (the next block's ids are numbered as if it had run); one whose HTML holds an
    id of the old prefix is converted again."""
    md = markdown.Markdown(extensions=["toc", "attr_list"])
    converter = MarkdownConverter(md, update_toc=False)
    calls = []

    def original(self, text, stash=None, id_prefix=None):
        calls.append(text)
        return MarkdownConverter.convert(self, text, stash, id_prefix)

    convert = render_cache.cached_convert(original, render_cache.Store(tmp_path / "render.json"))
    plain, anchored = "Some *output*.", "A [link](#x){ #anchor }."
    first = convert(converter, plain)
    counter = MarkdownConverter.counter
    assert convert(converter, plain) == first and MarkdownConverter.counter == counter + 1 and calls == [plain]
    html = str(convert(converter, anchored))
    assert f'id="exec-{counter + 2}--anchor"' in html
    assert f'id="exec-{counter + 3}--anchor"' in str(convert(converter, anchored)) and calls == [plain, anchored, anchored]
