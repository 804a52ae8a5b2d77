"""Every lab page as a Jupyter notebook, in each language, opening with the build's outputs.

A lab page (`docs/**/lab/*.md`, not an index) gets a notebook page beside it, `<lab>/notebook/`
(engine/jupyter/notebook_pages.py), holding `<stem>.ipynb` (default language) or `<stem>.<lang>.ipynb` (the
others); the lab page's buttons offer both (engine/theme/main.html reads `page.meta["notebook"]`).
Markdown cells are the page's prose, each heading keeping its anchor (`<a id="part-d"></a>`, so the
page's `#part-d` links hold in the notebook), and the code it shows (read from the snippet files its
includes name, `page_includes`); each call becomes a code cell that imports and runs it as the build
did (a fresh process for ISOLATE snippets), holding the output the page shows: the same execution
(the engine's cache) or the same GPU recording, so nothing runs twice and the notebook and the page
cannot disagree.
"""

from __future__ import annotations

import json
import posixpath
import re
import textwrap
from importlib import metadata
from pathlib import Path, PurePosixPath

from engine.gpu import recordings
from engine.site import render, render_cache
from engine.source.includes import FENCE, Include, page_includes
from engine.source.parity import ANCHOR, ANY_FENCE, HEADING
from engine.site.search_split import languages
from engine.source.sources import PACKAGE, SnippetError, declarations, module_name, part_source, snippet_path
from engine.source.urls import notebook_url, page_url

SETUP = "import sys\n\nfrom engine import seed_everything  # seeds random, NumPy and torch with 0"
TEXT = {
    "en": {
        "intro": ("> This notebook was generated from the course page [{title}]({url}). Each snippet appears "
                  "as the page shows it, followed by a code cell that makes the page's call, with the output the "
                  "page shows, from the same run. To run the cells, start Jupyter at the root of a clone of the "
                  "course's repository (they import its `snippets` and `engine` packages), and edit the snippet "
                  "files there to experiment."),
        "setup": "Every call on the page ran right after seeding `random`, NumPy and torch with 0; so do the cells below.",
        "isolate": "The build ran this call in a Python process of its own (`engine.run.child`), and so does the cell below.",
        "gpu": "This call needs an NVIDIA GPU: the output below was recorded on one.",
        "gpu_also": "The same call, recorded on an NVIDIA GPU:",
        "page_title": "{title} (notebook)",
        "diagram": "Diagram drawn by the snippet: {title}",
    },
    "es": {
        "intro": ("> Este notebook se generó a partir de la página del curso [{title}]({url}). Cada snippet "
                  "aparece como en la página, seguido de una celda de código que hace la misma llamada, con la "
                  "salida que muestra la página (de la misma ejecución). Para ejecutar las celdas, "
                  "arranca Jupyter en la raíz de un clon del repositorio del curso (importan sus paquetes "
                  "`snippets` y `engine`) y edita allí los archivos de snippet para experimentar."),
        "setup": "Cada llamada de la página se ejecutó justo después de fijar la semilla 0 en `random`, NumPy y torch; las celdas de abajo hacen lo mismo.",
        "isolate": "Al generar el sitio, esta llamada se ejecutó en un proceso de Python propio (`engine.run.child`), y la celda de abajo hace lo mismo.",
        "gpu": "Esta llamada necesita una GPU NVIDIA: la salida de abajo se grabó en una.",
        "gpu_also": "La misma llamada, grabada en una GPU NVIDIA:",
        "page_title": "{title} (notebook)",
        "diagram": "Diagrama dibujado por el snippet: {title}",
    },
}
FRONT_MATTER = re.compile(r"\A---\n.*?\n---[ \t]*\n", re.DOTALL)
HEADING_ATTRS = re.compile(r"[ \t]*\{[^}\n]*\}[ \t]*$")
PARAGRAPH_ID = re.compile(r"^((?:[^\s{][^\n]*\n)+)\{ #([\w-]+) \}[ \t]*$", re.MULTILINE)  # a paragraph's `{ #id }`
LINK = re.compile(r"(!?\[[^\]]*\]\()([^)\s]+)([^)]*\))")
BLOCK = re.compile(r"^(?P<indent>[ \t]*)(?:(?:!!!|\?\?\?\+?)[ \t]+[\w-]+(?:[ \t]+\"(?P<title>[^\"]*)\")?"
                   r"|===[ \t]+\"(?P<tab>[^\"]*)\")[ \t]*\n(?P<body>(?:(?:(?P=indent)[ \t]{4}.*)?\n)*)", re.MULTILINE)


def is_lab(src_uri: str) -> bool:
    """A lab page: `<anything>/lab/<name>.md` (any language suffix), not the lab folder's index."""
    path = PurePosixPath(src_uri)
    return len(path.parts) >= 2 and path.parent.name == "lab" and path.name.split(".")[0] != "index"


def english_src(src_uri: str) -> str:
    """The English source path of a page (`a/x.es.md` -> `a/x.md`)."""
    path = PurePosixPath(src_uri)
    return str(path.with_name(path.name.split(".")[0] + ".md"))


def notebook_name(src_uri: str, lang: str, default: str) -> str:
    stem = PurePosixPath(src_uri).name.split(".")[0]
    return f"{stem}.ipynb" if lang == default else f"{stem}.{lang}.ipynb"


def _folder(url: str) -> str:
    """The folder a page's relative links start from (`a/b/` -> `a/b/`, `a/b.html` -> `a/`)."""
    return url if url.endswith("/") or url == "" else posixpath.dirname(url) + "/"


def _relative(url: str, folder: str) -> str:
    relative = posixpath.relpath("/" + url, "/" + folder)
    if relative == ".":
        return "./"
    return relative + "/" if url == "" or url.endswith("/") else relative


def offer(page, config) -> None:
    """A lab page offers its notebook (the theme shows the buttons): its page and its file."""
    src = page.file.src_uri
    if is_lab(src):
        lang, default = config.theme.get("language", "en"), languages(config)[0]
        english, urls = english_src(src), config.use_directory_urls
        view = _relative(notebook_url(english, urls), _folder(page_url(english, urls)))
        page.meta["notebook"] = {"view": view, "download": _folder(view) + notebook_name(src, lang, default)}


def site_link(src: str, target: str, base: str, use_directory_urls: bool = True) -> str:
    """URL of the site page `target` (a source path) for the notebook of page `src`: absolute under
    `base` (the language's root on the site) when the site has a `site_url`, else relative to the
    notebook, which lies in the folder of its notebook page."""
    url = page_url(target, use_directory_urls) if target.endswith(".md") else target
    if base:
        return base + url
    return _relative(url, _folder(notebook_url(src, use_directory_urls)))


def _site_links(text: str, src: str, base: str, use_directory_urls: bool) -> str:
    """Relative links and images of the page, rewritten to lead to the site from the notebook."""
    def fix(match: re.Match) -> str:
        target = match[2]
        if re.match(r"^[a-z][a-z0-9+.-]*:|^/|^#", target, re.IGNORECASE):
            return match[0]
        path, _, anchor = target.partition("#")
        parts = []
        for part in PurePosixPath(src).parent.joinpath(path).as_posix().split("/"):
            if part == "..":
                parts.pop()
            elif part not in ("", "."):
                parts.append(part)
        url = site_link(src, "/".join(parts), base, use_directory_urls)
        return f"{match[1]}{url}{'#' + anchor if anchor else ''}{match[3]}"

    return LINK.sub(fix, text)


def prose_markdown(text: str, src: str, base: str, use_directory_urls: bool) -> str:
    """Page prose as notebook Markdown: anchors as `<a id>`s, admonitions and tabs as quotes, links to the site."""
    pieces, last = [], 0
    for fence in ANY_FENCE.finditer(text):  # code fences in the prose stay as they are
        pieces += [_prose_only(text[last:fence.start()], src, base, use_directory_urls), fence.group(0)]
        last = fence.end()
    pieces.append(_prose_only(text[last:], src, base, use_directory_urls))
    return "".join(pieces).strip()


def unfold(markdown: str) -> str:
    """Blocks (a collapsed worked solution, an admonition, a tab) that hold a snippet include, opened
    out: the title in bold, then the body dedented, so that the include becomes a cell of its own
    and the prose after it stays prose (a notebook cannot fold cells)."""
    def opened(match: re.Match) -> str:
        if not FENCE.search(textwrap.dedent(match["body"])):
            return match[0]  # no include inside: quoted by _prose_only, as before
        title = match["title"] or match["tab"]
        return (f"{match['indent']}**{title}**\n\n" if title else "") + textwrap.dedent(match["body"]).lstrip("\n")

    return BLOCK.sub(opened, markdown)


def _heading(match: re.Match) -> str:
    """A heading without its `{ #anchor }`, keeping the anchor as an HTML one that Jupyter and the
    notebook page honour."""
    anchor = ANCHOR.search(match[2])
    return f"{match[1]} {HEADING_ATTRS.sub('', match[2])}" + (f' <a id="{anchor[1]}"></a>' if anchor else "")


def _prose_only(text: str, src: str, base: str, use_directory_urls: bool) -> str:
    text = HEADING.sub(_heading, text)
    text = PARAGRAPH_ID.sub(r'<div id="\2">\n\n\1\n</div>', text)  # Jupyter's Markdown has no `{ #id }`

    def block(match: re.Match) -> str:
        title = match["title"] or match["tab"]
        body = textwrap.dedent(match["body"]).strip("\n")
        lines = ([f"**{title}**", ""] if title else []) + body.splitlines()
        return "\n".join(f"{match['indent']}> {line}".rstrip() for line in lines) + "\n\n"

    text = BLOCK.sub(block, text)
    return _site_links(text, src, base, use_directory_urls)


def source_markdown(root: Path, include: Include) -> str | None:
    """The code the page shows, as a Markdown code block titled with its path (None for `show="output"`)."""
    if include.show == "output":
        return None
    path = snippet_path(root, include.path)
    return f"**`{PACKAGE}/{include.path}`**\n\n" + render.fence(part_source(path, include.part), "python").strip()


def run_source(root: Path, include: Include) -> str | None:
    """The code cell that makes the call the page made, the way the build made it (None when none)."""
    if not include.call or include.show == "code":
        return None
    path = snippet_path(root, include.path)
    module = module_name(root, path)
    if declarations(path).isolate:  # a process of its own, as the build's (engine.run.runner)
        return f"!{{sys.executable}} -m engine.run.child {module} {include.call}"
    return f"from {module} import {include.call}\n\nseed_everything()\n{include.call}()"


def outputs(site, include: Include, lang: str) -> tuple[str | None, list[str]]:
    """(the output the page shows for the call, Markdown notes: provenance and any GPU recording)."""
    if not include.call or include.show == "code":
        return None, []
    root = site.root
    path = snippet_path(root, include.path)
    devices = declarations(path).devices
    main, notes = None, []
    if "cpu" in devices:
        site.require(path, include.call, include.path)
        result = site.executor.run(path, include.call)  # in memory: the page's own run
        if not result.ok:
            raise SnippetError(result.error)
        main = result.output
        notes.append(f"*{site.built_label(path, lang)}*")
    if "cuda" in devices:
        recording = recordings.current(root, path, include.call)
        if recording is None:  # authoring with NMB_PENDING_RECORDINGS=1
            notes.append(render.LABELS[lang]["pending"].format(name=include.path))
        elif main is None:
            main = recording.output
            notes.append(f"*{render.recorded_label(lang, recording.provenance)}*")
        else:
            notes += [TEXT[lang]["gpu_also"], render.fence(recording.output, "text").strip(),
                      f"*{render.recorded_label(lang, recording.provenance)}*"]
    return main, notes


def _output(text: str, raw: bool) -> dict:
    """A stream output, or for `raw=True` includes (SVG, Markdown) the rich output the page inserts."""
    if not raw:
        return {"output_type": "stream", "name": "stdout", "text": text}
    kind = "image/svg+xml" if text.lstrip().startswith("<svg") else "text/markdown"
    return {"output_type": "display_data", "metadata": {},
            "data": {kind: text, "text/plain": "<the page shows this as a picture>"}}


# Cells and notebooks as nbformat's v4.new_* functions make them, as plain data: `to_json` validates
# the whole notebook, and a notebook written before is not validated again (nor nbformat imported).
def markdown_cell(source: str, **fields) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": source, **fields}


def code_cell(source: str, **fields) -> dict:
    return {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": source, **fields}


def to_json(notebook: dict, store) -> str:
    """The notebook as nbformat writes it, once validated; from `store` (engine/site/render_cache.py) when
    the same notebook was written before with the same nbformat."""
    found = render_cache.key("notebook", metadata.version("nbformat"), json.dumps(notebook, sort_keys=True))
    if (text := store.get(found)) is None:
        import nbformat

        node = nbformat.from_dict(notebook)
        nbformat.validate(node)
        text = nbformat.writes(node)
        store.put(found, text)
    return text


def include_cells(site, include: Include, lang: str, count: int) -> list:
    """The cells of one include: its code as the page shows it, notes, the call with its output, provenance."""
    info = {"snippet": include.path, "call": include.call}
    cells, shown = [], source_markdown(site.root, include)
    if shown:
        cells.append(markdown_cell(shown, metadata={"nmb": {**info, "role": "code"}}))
    source = run_source(site.root, include)
    if source is None:
        return cells
    settings = declarations(snippet_path(site.root, include.path))
    notes = ([TEXT[lang]["isolate"]] if settings.isolate else []) + ([TEXT[lang]["gpu"]] if "cpu" not in settings.devices else [])
    if notes:
        cells.append(markdown_cell(" ".join(notes)))
    output, provenance = outputs(site, include, lang)
    cell = code_cell(source, execution_count=count, metadata={"nmb": {
        **info, "role": "run", "isolate": settings.isolate, "devices": list(settings.devices)}})
    cell["outputs"] = [] if output is None else [_output(output, include.raw)]
    cells.append(cell)
    if provenance:
        cells.append(markdown_cell("\n\n".join(provenance)))
    return cells


def build_notebook(site, markdown: str, src: str, lang: str, title: str, base: str,
                   use_directory_urls: bool = True) -> dict:
    """The notebook (nbformat 4 JSON, not validated yet: see to_json) of one language of one lab page."""
    markdown = unfold(FRONT_MATTER.sub("", markdown))
    includes = page_includes(markdown)
    prose = FENCE.split(markdown)[:: FENCE.groups + 1]  # the text around the exec fences
    cells = [markdown_cell(TEXT[lang]["intro"].format(title=title, url=site_link(src, src, base, use_directory_urls))),
             markdown_cell(TEXT[lang]["setup"]),
             code_cell(SETUP, execution_count=1)]
    for text, include in zip(prose, includes + [None]):
        text = prose_markdown(text, src, base, use_directory_urls)
        if text:
            cells.append(markdown_cell(text))
        if include is not None:
            cells += include_cells(site, include, lang, 1 + sum(c["cell_type"] == "code" for c in cells))
    for number, cell in enumerate(cells):
        cell["id"] = f"cell-{number}"  # stable ids: the same page gives the same file
    return {"nbformat": 4, "nbformat_minor": 5, "cells": cells, "metadata": {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    }}


def title(markdown: str, fallback: str) -> str:
    """The page's first level-1 heading, without its anchor."""
    for level, text in HEADING.findall(FRONT_MATTER.sub("", markdown)):
        if len(level) == 1:
            return HEADING_ATTRS.sub("", text)
    return fallback


def lab_notebook(site, config, lab: Path, lang: str) -> dict:
    """The notebook of the lab page whose source, in `lang`, is `lab`."""
    src = english_src(lab.relative_to(config.docs_dir).as_posix())
    default = languages(config)[0]
    base = config.site_url or ""
    if base and lang != default:
        base += f"{lang}/"
    markdown = lab.read_text(encoding="utf-8")
    return build_notebook(site, markdown, src, lang, title(markdown, lab.stem), base, config.use_directory_urls)
