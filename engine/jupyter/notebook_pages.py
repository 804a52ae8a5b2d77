"""Workaround: each lab's notebook as a page of its language, `<lab>/notebook/`, beside its `.ipynb`.

mkdocs-jupyter's plugin would make these pages itself, but not under mkdocs-static-i18n 1.3.1:
`suffix.create_i18n_file` rebuilds every file as a plain `File`, dropping the plugin's `NotebookFile`,
so each notebook comes out as its raw JSON (ultrabug/mkdocs-static-i18n#198, open; PR #172 closed
unmerged). Until a release fixes that, the engine adds the pages after static-i18n has made its
language's files, fills them with the plugin's converter (engine/jupyter/notebook_html.py) and pairs them
for the language switcher (engine/hooks.py calls it from `on_files` and `on_page_content`). With a fixed
release, enabling the plugin (`execute: false`, `no_prompt: true`) on the notebooks that
engine/jupyter/notebooks.py builds, with notebook_html's repairs, replaces this module and those calls.
"""

from __future__ import annotations

import html
import json
import logging
import re
from pathlib import Path, PurePosixPath
from types import SimpleNamespace
from typing import Callable

from mkdocs.structure.files import File
from mkdocs.structure.toc import get_toc

from engine.source import translations
from engine.site import render_cache
from engine.jupyter import notebook_html, notebooks
from engine.site.bilingual import in_language
from engine.site.pages import StillRunning
from engine.site.render import LABELS
from engine.source.includes import IncludeError
from engine.site.search_split import languages
from engine.base.settings import Layout
from engine.source.sources import SnippetError

log = logging.getLogger("mkdocs.engine")
DIAGRAM_ALT = re.compile(r'(<img alt=")([^"]*)(" src="data:image/svg\+xml;base64,)')
WORDS = re.compile(r"^\*\*(.+?)\*\* (.*)\n\{ #([\w-]+) \}[ \t]*$", re.MULTILINE)  # snippets/figure.py's paragraph


def shown(notebook: str, lang: str) -> str:
    """The notebook as its page shows it: each figure (a Markdown output drawn in every language) in the
    page's language only, as the lab page shows it, and its words a paragraph with the id its SVG names
    (Jupyter's Markdown has no `{ #id }`).
    The `.ipynb` keeps every language's drawing, as the kernel prints them."""
    data = json.loads(notebook)
    for cell in data["cells"]:
        for output in cell.get("outputs", []):
            text = output.get("data", {}).get("text/markdown")
            if text is not None:
                text = in_language("".join(text), lang)
                output["data"]["text/markdown"] = WORDS.sub(r'<p id="\3"><strong>\1</strong> \2</p>', text)
    return json.dumps(data)


# Further notebook pages of each lab, made by the course's own hooks (the learner's workbench adds the
# workspace): name -> (make(the lab page's Markdown, language) -> the notebook's JSON, its page's titles).
KINDS: dict[str, tuple[Callable[[str, str], str], dict[str, str]]] = {}


def add_kind(files, config, name: str, make: Callable[[str, str], str], titles: dict[str, str]):
    """A notebook page `name` beside each lab page (`<lab>/<name>/`, its file `<name>.ipynb`), holding the
    notebook `make` returns for the lab page's Markdown in the page's language; titled `titles[lang]`, in
    which `{title}` is the lab's title."""
    KINDS[name] = make, titles
    return add(files, config, name)


def add(files, config, name: str = "notebook"):
    """One notebook page for each lab page of this language pass, paired with its translations."""
    lang, default = config.theme.get("language", "en"), languages(config)[0]
    labs = [f for f in files.documentation_pages()
            if notebooks.is_lab(f.src_uri) and getattr(f, "locale", lang) == lang]
    for lab in labs:
        url = notebooks.notebook_url(notebooks.english_src(lab.src_uri), config.use_directory_urls, name)
        urls = {other: ("" if other == default else f"{other}/") + url
                for other in [lang, *getattr(lab, "alternates", ())]}
        source = PurePosixPath(lab.src_uri)
        stem, *suffixes = source.name.split(".")  # a/lab/x.es.md -> a/lab/x/notebook.es.md
        page = File(str(source.parent / stem / ".".join([name, *suffixes])), src_dir=None,
                    dest_dir=config.site_dir, use_directory_urls=config.use_directory_urls,
                    dest_uri=urls[lang] + ("index.html" if url.endswith("/") else ""))
        page.generated_by, page._content = "engine.jupyter.notebook_pages", ""
        page.lab, page.kind, page.locale, page.locale_alternate_of = lab, name, lang, lang
        page.alternates = {other: SimpleNamespace(url=address) for other, address in urls.items()}
        files.append(page)
    return files


def lab_sources(docs: Path, langs: list[str]) -> dict[str, list[Path]]:
    """The lab pages under `docs` by language, `langs[0]` (the default, whose files have no suffix) first:
    each lab page, then its twins (engine/source/translations.py)."""
    labs = [p for p in translations.english_pages(docs) if notebooks.is_lab(p.relative_to(docs).as_posix())]
    return {lang: labs if lang == langs[0] else [translations.twin(p, lang) for p in labs] for lang in langs}


def convert_ahead(config, site, processes: int) -> None:
    """Start converting every lab's notebook, each language's (the default's first), while pages render
    (engine/jupyter/notebook_html.convert_ahead); a notebook that cannot be made yet is left to its page."""
    default, others = languages(config)
    made = []
    for lang, labs in lab_sources(Path(config.docs_dir), [default, *others]).items():
        for lab in labs:
            try:
                made.append(shown(notebooks.to_json(notebooks.lab_notebook(site, config, lab, lang),
                                                    render_cache.STORE), lang))
            except (StillRunning, IncludeError, SnippetError):
                continue  # its page says why
    notebook_html.convert_ahead(made, Layout(site.root).notebook_html, processes)


def is_notebook_page(page) -> bool:
    return hasattr(page.file, "lab")


def render(page, config, site) -> str | None:
    """The notebook page's content, its table of contents, title and download; its `.ipynb` written
    beside it. None (and a warning, which fails a strict build) when the lab's snippets fail."""
    lang = config.theme.get("language", "en")
    lab = page.file.lab
    if page.file.kind in KINDS:
        return _render_kind(page, lab, lang, site)
    try:
        notebook = notebooks.to_json(notebooks.lab_notebook(site, config, Path(lab.abs_src_path), lang),
                                     render_cache.STORE)
    except StillRunning:  # `mkdocs serve` on a cold cache: the page is rendered again when it is ready
        return "<p>" + html.escape(LABELS[lang]["running"].format(name=lab.src_uri)) + "</p>"
    except (IncludeError, SnippetError) as error:
        log.warning("engine: no notebook for [%s] %s: %s", lang, lab.src_uri, error)
        return None
    content, toc = notebook_html.render(shown(notebook, lang), Layout(site.root).notebook_html)
    content = DIAGRAM_ALT.sub(lambda m: m[1] + html.escape(notebooks.TEXT[lang]["diagram"].format(
        title=html.unescape(m[2]))) + m[3], content)  # the SVG's title, in words of the page's language
    name = notebooks.notebook_name(lab.src_uri, lang, languages(config)[0])
    return _finished(page, notebook, name, notebooks.TEXT[lang]["page_title"], content, toc)


def _render_kind(page, lab, lang: str, site) -> str:
    """A further notebook page (add_kind): its notebook rendered, and written beside it."""
    make, titles = KINDS[page.file.kind]
    notebook = make(lab.content_string, lang)
    content, toc = notebook_html.render(notebook, Layout(site.root).notebook_html)
    return _finished(page, notebook, f"{page.file.kind}.ipynb", titles[lang], content, toc)


def _finished(page, notebook: str, name: str, title: str, content: str, toc) -> str:
    """The page's content; its `.ipynb` written beside it as `name`, its title (`title` with the lab's in
    `{title}`), download and table of contents set, and search told to leave it out (its text is its lab
    page's, which search finds)."""
    lab = page.file.lab
    folder = Path(page.file.abs_dest_path).parent
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(notebook, encoding="utf-8")
    page.meta.update({"title": title.format(title=notebooks.title(lab.content_string, lab.name).replace("`", "")),
                      "notebook": {"download": name, "kind": page.file.kind}, "notebook_page": True,
                      "search": {"exclude": True}})
    page.toc = get_toc(toc)
    return content
