"""Every lab page offers a notebook in each language: generated from the page's own snippet
includes, opening with the outputs the page shows, and running in a real Jupyter kernel."""

from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat
import pytest

from engine.includes import page_includes
from engine.notebooks import absolute_imports, is_lab, notebook_name, page_url, prose_markdown
from engine.sources import declarations, snippet_path
from engine.translations import english_pages

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LABS = [p.relative_to(DOCS).as_posix() for p in english_pages(DOCS) if is_lab(p.relative_to(DOCS).as_posix())]
LANGS = {"en": "", "es": "es/"}
PRE = re.compile(r"<pre[^>]*>(.*?)</pre>", re.DOTALL)


def notebook(site: Path, src: str, lang: str) -> nbformat.NotebookNode:
    folder = site / LANGS[lang] / page_url(src)
    return nbformat.read(folder / notebook_name(src, lang, "en"), as_version=4)


def shown_blocks(page_html: str) -> set[str]:
    """The text of every <pre> block of a page, as a reader sees it."""
    return {html.unescape(re.sub(r"<[^>]+>", "", block)).strip() for block in PRE.findall(page_html)}


def snippet_cells(nb) -> list:
    return [cell for cell in nb.cells if cell.cell_type == "code" and "nmb" in cell.metadata]


def test_lab_pages_are_found():
    assert "phase-25/lab/00-dispatcher-trace.md" in LABS
    assert not is_lab("phase-25/lab/index.md") and not is_lab("phase-25/index.md")
    assert is_lab("phase-25/lab/00-dispatcher-trace.es.md")


@pytest.mark.parametrize("src", LABS)
@pytest.mark.parametrize("lang", list(LANGS))
def test_lab_offers_its_notebook_with_the_pages_outputs(built_site, src, lang):
    page_file = built_site / LANGS[lang] / page_url(src) / "index.html"
    page_html = page_file.read_text(encoding="utf-8")
    name = notebook_name(src, lang, "en")
    assert re.search(rf'<a class="md-button nmb-notebook" href="{re.escape(name)}" download', page_html), \
        f"{page_file} has no button for {name}"
    nb = notebook(built_site, src, lang)
    nbformat.validate(nb)
    source = DOCS / (src if lang == "en" else src.replace(".md", f".{lang}.md"))
    includes = page_includes(source.read_text(encoding="utf-8"))
    cells = snippet_cells(nb)
    assert [c.metadata["nmb"]["snippet"] for c in cells] == [i.path for i in includes]
    shown = shown_blocks(page_html)
    for cell in cells:
        for output in cell.outputs:
            assert output.text.strip() in shown, f"{name}: output of {cell.metadata['nmb']} is not on the page"
    assert any(cell.outputs for cell in cells) == any(i.call and i.show != "code" for i in includes)


@pytest.mark.parametrize("src", LABS)
def test_both_languages_run_the_same_code(built_site, src):
    english, spanish = notebook(built_site, src, "en"), notebook(built_site, src, "es")
    assert [c.source for c in snippet_cells(english)] == [c.source for c in snippet_cells(spanish)]
    assert [c.outputs for c in snippet_cells(english)] == [c.outputs for c in snippet_cells(spanish)]


@pytest.mark.parametrize("src", LABS)
def test_notebook_runs_in_a_kernel_and_reproduces_its_outputs(built_site, root, src):
    """Run every cell that a CPU can run; the outputs of in-process snippets come out identical."""
    from nbclient import NotebookClient

    nb = notebook(built_site, src, "en")
    runnable, compared = [], []
    for cell in nb.cells:
        info = cell.metadata.get("nmb")
        settings = declarations(snippet_path(root, info["snippet"])) if info else None
        if settings and "cpu" not in settings.devices:
            continue  # needs a GPU: its output is a recording
        runnable.append(cell)
        if info and info["call"] and not settings.isolate:
            compared.append((cell, "".join(o.text for o in cell.outputs)))
    for cell in runnable:
        if cell.cell_type == "code":
            cell.outputs = []
    nb.cells = runnable
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(root)}}).execute()
    assert compared, "the lab shows no in-process output to compare"
    for cell, expected in compared:
        got = "".join(output.get("text", "") for output in cell.outputs)
        assert got == expected, f"{cell.metadata['nmb']}: the kernel printed {got!r}, the page shows {expected!r}"


def test_relative_imports_become_absolute():
    source = "from . import grammar\nfrom .tokenizer import encode\nfrom ..minigpt.x import y\nimport torch\n"
    assert absolute_imports(source, "snippets.phase25.lab02.ops", is_package=False) == (
        "from snippets.phase25.lab02 import grammar\nfrom snippets.phase25.lab02.tokenizer import encode\n"
        "from snippets.phase25.minigpt.x import y\nimport torch\n")


def test_prose_links_lead_to_the_site_from_the_notebook():
    src = "phase-25/lab/01-x.md"
    assert prose_markdown("[home](../../index.md) [g](../../glossary.md#aten) ![i](img.png)", src, "", True) == (
        "[home](../../../) [g](../../../glossary/#aten) ![i](../img.png)")


def test_prose_keeps_code_and_drops_anchors():
    text = ('## Steps { #steps }\n\nSee [lab 00](../lab/00-dispatcher-trace.md#steps).\n\n'
            '!!! note "Why"\n\n    Because.\n\n```python\n# {not an anchor}\n```\n')
    assert prose_markdown(text, "phase-25/lab/01-x.md", "https://example.invalid/c/", True) == (
        "## Steps\n\nSee [lab 00](https://example.invalid/c/phase-25/lab/00-dispatcher-trace/#steps).\n\n"
        "> **Why**\n>\n> Because.\n\n```python\n# {not an anchor}\n```")
