"""Every lab page as a Jupyter notebook, in each language, opening with the build's outputs.

A lab page (`docs/**/lab/*.md`, not an index) becomes `<stem>.ipynb` (default language) and
`<stem>.<lang>.ipynb` (the others), written beside the page's HTML after the build and offered by
a button on the page (engine/theme/main.html reads `page.meta["notebook"]`). Markdown cells are the
page's prose; code cells are the snippet files its includes show (`page_includes`); each output
is the one the page shows, from the same execution (the engine's cache) or the same GPU
recording, so nothing runs twice and the notebook and the page cannot disagree.
mkdocs-jupyter is not used: it renders raw source under mkdocs-static-i18n (README, "Notebooks").
"""

from __future__ import annotations

import logging
import posixpath
import re
import textwrap
from pathlib import Path, PurePosixPath

from engine import recordings, render
from engine.includes import FENCE, Include, IncludeError, page_includes
from engine.parity import ANY_FENCE, HEADING
from engine.search_split import languages
from engine.sources import SnippetError, declarations, module_name, part_source, snippet_path

log = logging.getLogger("mkdocs.engine")

SETUP = "from engine.runner import seed_everything  # seeds random, NumPy and torch with 0"
TEXT = {
    "en": {
        "intro": ("> This notebook was generated from the course page [{title}]({url}). Its code cells "
                  "show the page's snippet files and open with the outputs the page shows, from the same "
                  "run. To run them yourself, start Jupyter at the root of a clone of the course's "
                  "repository: the cells import its `snippets` and `engine` packages."),
        "setup": "Every call on the page ran right after seeding `random`, NumPy and torch with 0; so do the cells below.",
        "isolate": "# The course runs this in a fresh Python process: restart the kernel first to get the same output.",
        "gpu": "# Needs an NVIDIA GPU: the output below was recorded on one.",
        "gpu_also": "The same call, recorded on an NVIDIA GPU:",
    },
    "es": {
        "intro": ("> Este notebook se generó a partir de la página del curso [{title}]({url}). Sus celdas de "
                  "código muestran los archivos de snippet de la página y se abren con las salidas que "
                  "muestra la página, de la misma ejecución. Para ejecutarlas tú, arranca Jupyter en la raíz "
                  "de un clon del repositorio del curso: las celdas importan sus paquetes `snippets` y `engine`."),
        "setup": "Cada llamada de la página se ejecutó justo después de fijar la semilla 0 en `random`, NumPy y torch; las celdas de abajo hacen lo mismo.",
        "isolate": "# El curso ejecuta esto en un proceso de Python nuevo: reinicia el kernel antes para obtener la misma salida.",
        "gpu": "# Necesita una GPU NVIDIA: la salida de abajo se grabó en una.",
        "gpu_also": "La misma llamada, grabada en una GPU NVIDIA:",
    },
}
FRONT_MATTER = re.compile(r"\A---\n.*?\n---[ \t]*\n", re.DOTALL)
HEADING_ATTRS = re.compile(r"[ \t]*\{[^}\n]*\}[ \t]*$")
LINK = re.compile(r"(!?\[[^\]]*\]\()([^)\s]+)([^)]*\))")
BLOCK = re.compile(r"^(?:(?:!!!|\?\?\?\+?)[ \t]+[\w-]+(?:[ \t]+\"(?P<title>[^\"]*)\")?|===[ \t]+\"(?P<tab>[^\"]*)\")[ \t]*\n"
                   r"(?P<body>(?:(?:[ \t]{4}.*)?\n)*)", re.MULTILINE)
RELATIVE_IMPORT = re.compile(r"^(?P<indent>[ \t]*)from[ \t]+(?P<dots>\.+)(?P<rest>[\w.]*)[ \t]+import\b", re.MULTILINE)


def is_lab(src_uri: str) -> bool:
    """A lab page: `<anything>/lab/<name>.md` (any language suffix), not the lab folder's index."""
    path = PurePosixPath(src_uri)
    return len(path.parts) >= 2 and path.parent.name == "lab" and path.name.split(".")[0] != "index"


def notebook_name(src_uri: str, lang: str, default: str) -> str:
    stem = PurePosixPath(src_uri).name.split(".")[0]
    return f"{stem}.ipynb" if lang == default else f"{stem}.{lang}.ipynb"


def offer(page, config) -> None:
    """Name the notebook in the page's meta when the page is a lab (the theme shows the button)."""
    if is_lab(page.file.src_uri):
        lang = config.theme.get("language", "en")
        page.meta["notebook"] = notebook_name(page.file.src_uri, lang, languages(config)[0])


def page_url(src: str, use_directory_urls: bool = True) -> str:
    """Site-relative URL of a page from its English source path (`a/b.md` -> `a/b/`)."""
    path = PurePosixPath(src)
    if path.name == "index.md":
        return "" if str(path.parent) == "." else f"{path.parent}/"
    stem = path.with_suffix("")
    return f"{stem}/" if use_directory_urls else f"{stem}.html"


def absolute_imports(source: str, module: str, is_package: bool) -> str:
    """Relative imports rewritten as absolute ones: a notebook cell belongs to no package."""
    package = module.split(".") if is_package else module.split(".")[:-1]

    def fix(match: re.Match) -> str:
        anchor = package[: len(package) - len(match["dots"]) + 1]
        target = ".".join(anchor + ([match["rest"]] if match["rest"] else []))
        return f"{match['indent']}from {target} import"

    return RELATIVE_IMPORT.sub(fix, source)


def site_link(src: str, target: str, base: str, use_directory_urls: bool = True) -> str:
    """URL of the site page `target` (a source path) for the notebook of page `src`: absolute under
    `base` (the language's root on the site) when the site has a `site_url`, else relative to the
    notebook, which lies in the folder of its page."""
    url = page_url(target, use_directory_urls) if target.endswith(".md") else target
    if base:
        return base + url
    folder = page_url(src, use_directory_urls) if use_directory_urls else str(PurePosixPath(src).parent) + "/"
    relative = posixpath.relpath("/" + url, "/" + folder)
    if relative == ".":
        return "./"
    return relative + "/" if url == "" or url.endswith("/") else relative


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
    """Page prose as notebook Markdown: no `{ #anchor }`s, admonitions and tabs as quotes, links to the site."""
    pieces, last = [], 0
    for fence in ANY_FENCE.finditer(text):  # code fences in the prose stay as they are
        pieces += [_prose_only(text[last:fence.start()], src, base, use_directory_urls), fence.group(0)]
        last = fence.end()
    pieces.append(_prose_only(text[last:], src, base, use_directory_urls))
    return "".join(pieces).strip()


def _prose_only(text: str, src: str, base: str, use_directory_urls: bool) -> str:
    text = HEADING.sub(lambda m: f"{m[1]} {HEADING_ATTRS.sub('', m[2])}", text)

    def block(match: re.Match) -> str:
        title = match["title"] or match["tab"]
        body = textwrap.dedent(match["body"]).strip("\n")
        lines = ([f"**{title}**", ""] if title else []) + body.splitlines()
        return "\n".join(f"> {line}".rstrip() for line in lines) + "\n\n"

    text = BLOCK.sub(block, text)
    return _site_links(text, src, base, use_directory_urls)


def code_source(root: Path, include: Include, lang: str) -> str:
    """The code cell of one include: the code the page shows, then the call the page ran."""
    path = snippet_path(root, include.path)
    module = module_name(root, path)
    settings = declarations(path)
    lines = []
    if settings.isolate:
        lines.append(TEXT[lang]["isolate"])
    if "cpu" not in settings.devices:
        lines.append(TEXT[lang]["gpu"])
    if include.show == "output":
        lines.append(f"from {module} import {include.call}")
    else:
        code = absolute_imports(part_source(path, include.part), module, path.name == "__init__.py")
        if include.part:
            lines.append(f"from {module} import *  # the module {include.part} lives in\n")
        lines.append(code.rstrip())
    if include.call and include.show != "code":
        lines += ["", "", "seed_everything()", f"{include.call}()"]
    return "\n".join(lines)


def outputs(site, include: Include, lang: str) -> tuple[str | None, list[str]]:
    """(the output the page shows for the call, Markdown notes: provenance and any GPU recording)."""
    if not include.call or include.show == "code":
        return None, []
    root = site.root
    path = snippet_path(root, include.path)
    devices = declarations(path).devices
    main, notes = None, []
    if "cpu" in devices:
        result = site.executor.run(path, include.call)  # in memory: the page's own run
        if not result.ok:
            raise SnippetError(result.error)
        main = result.output
        notes.append(f"*{render.built_label(lang, site.executor.environment)}*")
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


def build_notebook(site, markdown: str, src: str, lang: str, title: str, base: str,
                   use_directory_urls: bool = True) -> dict:
    """The notebook (nbformat 4 JSON) of one language of one lab page."""
    import nbformat
    from nbformat import v4

    markdown = FRONT_MATTER.sub("", markdown)
    includes = page_includes(markdown)
    prose = FENCE.split(markdown)[:: FENCE.groups + 1]  # the text around the exec fences
    cells = [v4.new_markdown_cell(TEXT[lang]["intro"].format(title=title, url=site_link(src, src, base, use_directory_urls))),
             v4.new_markdown_cell(TEXT[lang]["setup"]),
             v4.new_code_cell(SETUP, execution_count=1)]
    count = 1
    for text, include in zip(prose, includes + [None]):
        text = prose_markdown(text, src, base, use_directory_urls)
        if text:
            cells.append(v4.new_markdown_cell(text))
        if include is None:
            break
        output, notes = outputs(site, include, lang)
        cell = v4.new_code_cell(code_source(site.root, include, lang))
        if output is not None:
            count += 1
            cell.execution_count = count
            cell.outputs = [v4.new_output("stream", name="stdout", text=output)]
        cell.metadata["nmb"] = {"snippet": include.path, "call": include.call if output is not None else None}
        cells.append(cell)
        if notes:
            cells.append(v4.new_markdown_cell("\n\n".join(notes)))
    for number, cell in enumerate(cells):
        cell.id = f"cell-{number}"  # stable ids: the same page gives the same file
    notebook = v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    })
    nbformat.validate(notebook)
    return notebook


def _title(markdown: str, fallback: str) -> str:
    for level, text in HEADING.findall(FRONT_MATTER.sub("", markdown)):
        if len(level) == 1:
            return HEADING_ATTRS.sub("", text)
    return fallback


def write_all(config, site) -> list[Path]:
    """Write the notebooks of every lab page in every language into the built site."""
    import nbformat

    docs, site_dir = Path(config.docs_dir), Path(config.site_dir)
    default, others = languages(config)
    base = config.site_url or ""
    written = []
    for page in sorted(docs.rglob("*.md")):
        src = page.relative_to(docs).as_posix()
        if len(page.suffixes) != 1 or not is_lab(src):
            continue
        for lang in [default, *others]:
            source = page if lang == default else page.with_name(f"{page.stem}.{lang}.md")
            prefix = "" if lang == default else f"{lang}/"
            url = page_url(src, config.use_directory_urls)
            folder = site_dir / prefix / (url if config.use_directory_urls else PurePosixPath(url).parent.as_posix())
            if not source.is_file() or not folder.is_dir():
                continue  # this language pass has not written the page yet
            markdown = source.read_text(encoding="utf-8")
            try:
                notebook = build_notebook(site, markdown, src, lang, _title(markdown, page.stem),
                                          base + prefix, config.use_directory_urls)
            except (IncludeError, SnippetError) as error:
                log.warning("engine: no notebook for [%s] %s: %s", lang, src, error)
                continue
            target = folder / notebook_name(src, lang, default)
            target.write_text(nbformat.writes(notebook), encoding="utf-8")
            written.append(target)
    return written
