"""Every lab page offers a notebook in each language, to read as a page and to download: generated
from the page's own snippet includes, opening with the outputs the page shows, rendered by
mkdocs-jupyter's converter, and running in a real Jupyter kernel."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import nbformat
import pytest

from engine.source.includes import page_includes
from engine.source.sources import snippet_path, starts_processes
from engine.jupyter import notebook_html
from engine.jupyter.notebooks import is_lab, notebook_name, prose_markdown
from engine.source.urls import notebook_url, page_url
from engine.source.translations import english_pages

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LABS = [p.relative_to(DOCS).as_posix() for p in english_pages(DOCS) if is_lab(p.relative_to(DOCS).as_posix())]
LANGS = {"en": "", "es": "es/"}
PRE = re.compile(r"<pre[^>]*>(.*?)</pre>", re.DOTALL)


def notebook(site: Path, src: str, lang: str) -> nbformat.NotebookNode:
    folder = site / LANGS[lang] / notebook_url(src)
    return nbformat.read(folder / notebook_name(src, lang, "en"), as_version=4)


def visible(text: str) -> str:
    """Text as a reader sees it: the highlighter drops trailing blanks on each line."""
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def shown_blocks(page_html: str) -> set[str]:
    """The text of every <pre> block of a page, as a reader sees it."""
    return {visible(html.unescape(re.sub(r"<[^>]+>", "", block))) for block in PRE.findall(page_html)}


def cells(nb, role: str) -> list:
    """The cells generated for the page's includes: "code" (what the page shows) or "run" (its calls)."""
    return [cell for cell in nb.cells if cell.metadata.get("nmb", {}).get("role") == role]


def text_of(outputs) -> str:
    """What a cell's outputs say: printed text, or the picture's source for a rich output."""
    parts = []
    for output in outputs:
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type in ("display_data", "execute_result"):
            parts.append(next(v for k, v in output.data.items() if k != "text/plain"))
    return "".join(parts)


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
    assert re.search(r'<a class="md-button nmb-notebook" href="notebook/"', page_html), f"{page_file} offers no notebook page"
    assert re.search(rf'<a class="md-button nmb-notebook" href="notebook/{re.escape(name)}" download', page_html), \
        f"{page_file} has no button for {name}"
    nb = notebook(built_site, src, lang)
    nbformat.validate(nb)
    source = DOCS / (src if lang == "en" else src.replace(".md", f".{lang}.md"))
    includes = page_includes(source.read_text(encoding="utf-8"))
    assert [c.metadata["nmb"]["snippet"] for c in cells(nb, "code")] == [i.path for i in includes if i.show != "output"]
    runs = cells(nb, "run")
    assert [c.metadata["nmb"]["snippet"] for c in runs] == [i.path for i in includes if i.call and i.show != "code"]
    shown = shown_blocks(page_html)
    for cell in runs:
        for output in cell.outputs:
            if output.output_type == "stream":
                assert visible(output.text) in shown, f"{name}: output of {cell.metadata['nmb']} is not on the page"
    assert all(cell.outputs for cell in runs if "cpu" in cell.metadata["nmb"]["devices"])


@pytest.mark.parametrize("src", LABS)
@pytest.mark.parametrize("lang", list(LANGS))
def test_notebook_page_shows_the_notebook(built_site, src, lang):
    """The notebook page: the site's page in its language, showing every cell's code and output,
    each heading under the lab page's anchor, the .ipynb beside it to download, out of search."""
    page_file = built_site / LANGS[lang] / notebook_url(src) / "index.html"
    page_html = page_file.read_text(encoding="utf-8")
    assert f'<html lang="{lang}"' in page_html and 'class="md-header' in page_html and 'data-nmb-palette' in page_html
    name = notebook_name(src, lang, "en")
    assert re.search(rf'<a class="md-button nmb-notebook" href="{re.escape(name)}" download', page_html), page_file
    shown = shown_blocks(page_html)
    nb = notebook(built_site, src, lang)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert visible(cell.source) in shown, f"{page_file}: the cell {cell.source[:60]!r} is not shown"
            for output in cell.outputs:
                if output.output_type == "stream":
                    assert visible(output.text) in shown, f"{page_file}: an output of {cell.metadata['nmb']} is not shown"
    lab_html = (built_site / LANGS[lang] / page_url(src) / "index.html").read_text(encoding="utf-8")
    assert re.findall(r'<h[1-6] id="([^"]+)"', page_html) == re.findall(r'<h[1-6] id="([^"]+)"', lab_html)
    assert f'"{notebook_url(src)}' not in (built_site / LANGS[lang] / "search" / "search_index.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("src", LABS)
def test_both_languages_run_the_same_code(built_site, src):
    english, spanish = notebook(built_site, src, "en"), notebook(built_site, src, "es")
    assert [c.source for c in cells(english, "run")] == [c.source for c in cells(spanish, "run")]
    assert [c.outputs for c in cells(english, "run")] == [c.outputs for c in cells(spanish, "run")]


@pytest.mark.parametrize("src", LABS)
def test_notebook_runs_in_a_kernel_and_reproduces_its_outputs(built_site, root, src):
    """Run the notebook in a Jupyter kernel: every in-process call prints exactly what the page shows.

    Calls the build ran in a fresh process (ISOLATE) run the very command the build ran,
    `python -m engine.run.child MODULE CALL`; they are checked for that and not run a second time here
    (torch.compile and friends take tens of seconds). Nor are calls that start processes of their own
    (interpreters, ranks): what they print comes from those processes, which the kernel would start
    again exactly as the build did. GPU-only calls are recordings."""
    from nbclient import NotebookClient

    nb = notebook(built_site, src, "en")
    for cell in cells(nb, "run"):
        info = cell.metadata["nmb"]
        if info["isolate"]:
            module = "snippets." + info["snippet"].removesuffix(".py").replace("/", ".")
            assert cell.source == f"!{{sys.executable}} -m engine.run.child {module} {info['call']}"

    def rerun(cell) -> bool:
        info = cell.metadata.get("nmb", {})
        return info.get("role") != "run" or not (info["isolate"] or "cpu" not in info["devices"] or starts_processes(
            root, snippet_path(root, info["snippet"])))

    nb.cells = [c for c in nb.cells if rerun(c)]
    expected = {c.id: text_of(c.outputs) for c in cells(nb, "run")}
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    if not expected:
        return  # every call of this lab is isolated or needs a GPU: checked above
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(root)}}).execute()
    for cell in cells(nb, "run"):
        got = text_of(cell.outputs)
        assert got.strip() == expected[cell.id].strip(), \
            f"{cell.metadata['nmb']}: the kernel printed {got!r}, the page shows {expected[cell.id]!r}"


def test_prose_links_lead_to_the_site_from_the_notebook():
    """The notebook lies in its notebook page's folder, `phase-25/lab/01-x/notebook/`."""
    src = "phase-25/lab/01-x.md"
    assert prose_markdown("[home](../../index.md) [g](../../glossary.md#aten) ![i](img.png)", src, "", True) == (
        "[home](../../../../) [g](../../../../glossary/#aten) ![i](../../img.png)")


def test_prose_keeps_code_and_anchors():
    text = ('## Steps { #steps }\n\nSee [lab 00](../lab/00-dispatcher-trace.md#steps) and [below](#steps).\n\n'
            '!!! note "Why"\n\n    Because.\n\n```python\n# {not an anchor}\n```\n')
    assert prose_markdown(text, "phase-25/lab/01-x.md", "https://example.invalid/c/", True) == (
        '## Steps <a id="steps"></a>\n\nSee [lab 00](https://example.invalid/c/phase-25/lab/00-dispatcher-trace/#steps) '
        "and [below](#steps).\n\n> **Why**\n>\n> Because.\n\n```python\n# {not an anchor}\n```")


def test_a_collapsed_solution_with_an_include_opens_out():
    from engine.jupyter.notebooks import unfold

    text = ('**Task.** Predict.\n\n??? success "Worked solution"\n\n    ```python exec="1"\n'
            '    print(snippet("a/b.py"))\n    ```\n\n    It prints 2.\n\n## Next { #next }\n')
    opened = unfold(text)
    assert opened == ('**Task.** Predict.\n\n**Worked solution**\n\n```python exec="1"\nprint(snippet("a/b.py"))\n'
                      '```\n\nIt prints 2.\n\n## Next { #next }\n')
    assert [i.path for i in page_includes(opened)] == ["a/b.py"]
    assert unfold('??? note "Why"\n\n    Because.\n') == '??? note "Why"\n\n    Because.\n'



def test_converter_output_is_repaired_and_cached(tmp_path):
    """The converter's page loses its CDN scripts, inlined styles and copy icons; code is the theme's
    `pre > code`; a heading takes the anchor its cell names; the second render comes from the cache."""
    from nbformat import v4

    nb = v4.new_notebook(cells=[v4.new_markdown_cell('# Title <a id="top"></a>\n\n## Part `D` <a id="part-d"></a>\n\n'
                                                     "[back](#top)"),
                                v4.new_code_cell("print(1)", outputs=[v4.new_output("stream", name="stdout", text="1\n")])])
    text = nbformat.writes(nb)
    content, toc = notebook_html.render(text, tmp_path)
    assert not re.search(r"<script|<style|clipboard|mathjax|cdn", content, re.IGNORECASE)
    assert '<h2 id="part-d">Part <code>D</code><a class="headerlink" href="#part-d"' in content
    assert 'href="#top"' in content and 'id="top"' in content
    assert re.search(r'<div class="highlight"><pre><code>.*print', content, re.DOTALL)
    assert '<div class="highlight"><pre><code>1\n</code></pre></div>' in content
    assert toc == [{"level": 1, "id": "top", "name": "Title", "children": [
        {"level": 2, "id": "part-d", "name": "Part D", "children": []}]}]
    cached = list(tmp_path.iterdir())
    assert len(cached) == 1
    cached[0].write_text(json.dumps({"html": "from the cache", "toc": []}), encoding="utf-8")
    assert notebook_html.render(text, tmp_path) == ("from the cache", [])
    assert notebook_html.render(text.replace("print(1)", "print(2)"), tmp_path)[0] != "from the cache"


def test_the_converter_without_its_last_pass_gives_the_stock_exporters_page(monkeypatch):
    """convert() leaves out nbconvert's final pass over the whole page, repair() makes up for it: a notebook
    with a heading, code, printed output, an SVG and a PNG without alt comes out as through nbconvert's own
    HTMLExporter (an nbconvert whose last step changed fails here)."""
    from nbconvert.exporters.html import HTMLExporter
    from nbformat import v4

    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><title>A box</title></svg>'
    nb = v4.new_notebook(cells=[
        v4.new_markdown_cell('## Part D <a id="part-d"></a>'),
        v4.new_code_cell("print(1)", outputs=[v4.new_output("stream", name="stdout", text="1\n")]),
        v4.new_code_cell("draw()", outputs=[v4.new_output("display_data", data={"image/png": png}),
                                            v4.new_output("display_data", data={"image/svg+xml": svg})])])
    text = nbformat.writes(nb)
    ours = notebook_html.repair(notebook_html.convert(text))
    monkeypatch.setattr(notebook_html, "_exporter", lambda: HTMLExporter)
    stock = notebook_html.repair(notebook_html.convert(text))
    assert ours == stock
    assert notebook_html.NO_DESCRIPTION in ours[0] and 'alt="A box"' in ours[0] and "tabindex" not in ours[0]


def test_a_drawn_diagram_keeps_its_title_as_text_alternative(tmp_path):
    """A snippet's SVG becomes an image in the notebook: its alt text is the SVG's own title."""
    from nbformat import v4

    svg = '<svg xmlns="http://www.w3.org/2000/svg" role="img"><title>What DDP sends</title></svg>'
    output = v4.new_output("display_data", data={"image/svg+xml": svg, "text/plain": "a picture"})
    nb = v4.new_notebook(cells=[v4.new_code_cell("draw()", outputs=[output])])
    content, _ = notebook_html.render(nbformat.writes(nb), tmp_path)
    assert 'alt="What DDP sends"' in content and "No description" not in content
