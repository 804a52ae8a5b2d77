"""A notebook as the content of a site page, rendered by mkdocs-jupyter's converter.

`mkdocs_jupyter.convert.nb2html` renders the notebook without executing it (its outputs are the
build's own) and without prompts (`In [1]:` fails the contrast check). Its HTML is then made fit
for the site:

- only the notebook is kept: the MathJax and Mermaid loaders it points at a CDN, its clipboard
  script and the JupyterLab stylesheet it inlines are dropped (notebook pages link one shared
  stylesheet instead, engine/theme/assets/stylesheets/notebook.css);
- code and outputs are written as the theme writes code blocks (`div.highlight > pre > code`), so
  the theme colours them, gives each its copy button (the converter's own copy icons go) and makes
  a block that scrolls reachable by keyboard; a cell's id loses the converter's `cell-id=` (the theme
  names each block after the nearest id and its copy button finds the block by a CSS selector, which
  an `=` breaks: the button copied nothing);
- a heading whose cell names its anchor (`## Part D <a id="part-d"></a>`) takes it as its id, so
  the lab page's links (`#part-d`) hold here too; the table of contents is read from those ids (the
  converter's own slugs headings that hold code differently from the ids it writes).

The result, HTML and table of contents, is cached in `.cache/notebook-html/`, keyed on the
notebook, the converter's versions and this module's source: an unchanged rebuild converts nothing.
A build converts the notebooks missing there ahead (`convert_ahead`), in processes of their own
(`python -m engine.jupyter.notebook_html CACHE` reading the notebooks as a JSON list on stdin) while pages
render; `render` waits for a notebook that one of them is converting.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import json
import re
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

from engine.base import atomic

CONVERTER = ("mkdocs-jupyter", "nbconvert", "mistune", "Pygments", "beautifulsoup4")
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
NO_DESCRIPTION = "No description has been provided for this image"  # nbconvert's text for an image without alt


@functools.cache
def converter_version() -> str:
    """The versions that shape the HTML, and this module's own source."""
    versions = " ".join(f"{name}=={version(name)}" for name in CONVERTER)
    return versions + " " + hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


_converting: dict[Path, subprocess.Popen] = {}  # cache entry -> the process converting it (convert_ahead)
used: set[str] = set()  # names of the cache entries this process has looked up (store.prune keeps them)


def entry(notebook: str, cache: Path) -> Path:
    """The cache file of a notebook's HTML."""
    name = hashlib.sha256(f"{converter_version()}\n{notebook}".encode()).hexdigest() + ".json"
    used.add(name)
    return cache / name


def render(notebook: str, cache: Path) -> tuple[str, list[dict]]:
    """(HTML, table-of-contents tokens) of a notebook given as nbformat JSON, from the cache when it can
    (once the process converting it ahead has written it, or has ended without)."""
    cached = entry(notebook, cache)
    process = _converting.get(cached)
    while process is not None and not cached.is_file() and process.poll() is None:
        time.sleep(0.02)
    try:
        data = json.loads(cached.read_text(encoding="utf-8"))
        return data["html"], data["toc"]
    except (OSError, ValueError, KeyError, TypeError):
        pass  # not converted yet, or an entry cut short: converted again
    content, toc = repair(convert(notebook))
    atomic.write_text(cached, json.dumps({"html": content, "toc": toc}))
    return content, toc


def convert_ahead(notebooks: list[str], cache: Path, processes: int) -> None:
    """Start converting, in up to `processes` processes, the notebooks the cache lacks, in the order given
    (each process takes every `processes`-th); `render` waits for each."""
    entries = {entry(n, cache): n for n in notebooks}
    todo = [file for file in entries if file not in _converting and not file.is_file()]
    for share in (todo[i::processes] for i in range(min(processes, len(todo)))):
        process = subprocess.Popen([sys.executable, "-m", "engine.jupyter.notebook_html", str(cache)],
                                   cwd=Path(__file__).resolve().parents[2], stdin=subprocess.PIPE, text=True)
        try:
            process.stdin.write(json.dumps([entries[file] for file in share]))
            process.stdin.close()
        except OSError:  # it died first: `render` converts its share in place
            pass
        _converting.update(dict.fromkeys(share, process))


def wait_ahead(stop: bool = False) -> None:
    """Wait for the processes converting ahead (with `stop`, stop them first: a build that failed): none
    outlives the build, and an entry one of them was writing is whole or absent (engine/base/atomic.py)."""
    for process in set(_converting.values()):
        if stop:
            process.terminate()
        process.wait()
    _converting.clear()


def main(argv: list[str]) -> int:
    """Convert the notebooks read from stdin (a JSON list) into the cache folder `argv[0]`."""
    for notebook in json.loads(sys.stdin.read()):
        render(notebook, Path(argv[0]))
    return 0


def convert(notebook: str) -> str:
    """The converter's HTML for the notebook: never executed, no prompts."""
    from mkdocs_jupyter import nbconvert2
    from mkdocs_jupyter.convert import nb2html

    nbconvert2.HTMLExporter = _exporter()
    with tempfile.TemporaryDirectory(prefix="nmb-notebook-") as folder:
        path = Path(folder) / "notebook.ipynb"
        path.write_text(notebook, encoding="utf-8")
        return nb2html(str(path), execute=False, no_prompt=True)


@functools.cache
def _exporter():
    """nbconvert's HTMLExporter, which mkdocs-jupyter uses, without its last step: a parse of the whole page
    (styles included) to give each image without `alt` a placeholder and each cell a `tabindex`. `repair`
    parses the notebook anyway: it gives those images the same placeholder and removes every `tabindex`
    (that step was about a quarter of a conversion's time)."""
    from nbconvert.exporters.html import HTMLExporter
    from nbconvert.exporters.templateexporter import TemplateExporter
    from nbconvert.filters.highlight import Highlight2HTML
    from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

    class Exporter(HTMLExporter):
        def from_notebook_node(self, nb, resources=None, **kw):
            """HTMLExporter.from_notebook_node (nbconvert 7.17) up to the page its template renders."""
            info = nb.metadata.get("language_info", {})
            lexer = info.get("pygments_lexer", info.get("name", None))
            self.register_filter("highlight_code", self.filters.get(
                "highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self)))
            resources = self._init_resources(resources)
            self.register_filter("filter_data_type", WidgetsDataTypeFilter(
                notebook_metadata=self._nb_metadata, parent=self, resources=resources))
            return TemplateExporter.from_notebook_node(self, nb, resources, **kw)

    return Exporter


def repair(converted: str) -> tuple[str, list[dict]]:
    """The notebook's HTML as a page of the site shows it, and its table-of-contents tokens."""
    from bs4 import BeautifulSoup, NavigableString

    start = converted.find('<div class="jupyter-wrapper"')  # before it: 600 KB of styles, never parsed
    soup = BeautifulSoup(converted[max(start, 0):], "html.parser")
    notebook = soup.select_one("div.jupyter-wrapper")  # what follows it: scripts and styles
    for element in notebook.select(".zeroclipboard-container, .clipboard-copy-txt"):
        element.decompose()
    for element in notebook.select("[tabindex]"):
        del element["tabindex"]  # whole cells are no stops for the keyboard; scrolling code is (the theme)
    for cell in notebook.select('[id^="cell-id="]'):
        cell["id"] = cell["id"].removeprefix("cell-id=")
    for block in notebook.select("div.highlight-ipynb"):
        block["class"] = ["highlight"]
    for pre in notebook.select(".jp-OutputArea-output > pre"):
        pre.wrap(soup.new_tag("div", attrs={"class": "highlight"}))
    for pre in notebook.select("div.highlight > pre"):
        if pre.code is None:
            code = soup.new_tag("code")
            code.extend(list(pre.contents))
            pre.append(code)
    for image in notebook.select("img:not([alt])"):
        image["alt"] = NO_DESCRIPTION
    for image in notebook.select('img[src^="data:image/svg+xml;base64,"]'):
        image["alt"] = svg_title(image["src"]) or image.get("alt", "")
    for heading in notebook.find_all(HEADINGS):
        anchor = heading.find("a", id=True)
        if anchor is not None:
            heading["id"] = anchor["id"]
            before = anchor.previous_sibling
            if isinstance(before, NavigableString):
                before.replace_with(before.rstrip())  # the space that set the anchor apart
            anchor.decompose()
        for link in heading.select("a.anchor-link"):
            link.attrs = {"class": "headerlink", "href": f"#{heading['id']}", "title": "Permanent link"}
    return str(notebook), toc_tokens(notebook)


def svg_title(data_uri: str) -> str | None:
    """The `<title>` of a base64 SVG (a diagram a snippet drew): the picture's text alternative,
    in place of the converter's "No description has been provided for this image"."""
    svg = base64.b64decode(data_uri.partition(",")[2]).decode("utf-8", "replace")
    found = re.search(r"<title>(.*?)</title>", svg, re.DOTALL)
    return html.unescape(found[1].strip()) if found else None


def toc_tokens(notebook) -> list[dict]:
    """MkDocs table-of-contents tokens from the headings' ids, nested by level."""
    tokens, open_ = [], []
    for heading in notebook.find_all(HEADINGS):
        if not heading.get("id"):
            continue
        text = "".join(s for s in heading.find_all(string=True) if "headerlink" not in (s.parent.get("class") or []))
        token = {"level": int(heading.name[1]), "id": heading["id"], "name": html.escape(text.strip()), "children": []}
        while open_ and open_[-1]["level"] >= token["level"]:
            open_.pop()
        (open_[-1]["children"] if open_ else tokens).append(token)
        open_.append(token)
    return tokens


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
