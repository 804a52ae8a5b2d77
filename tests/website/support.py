"""Build the site, serve it on 127.0.0.1, and list the pages a reader can open.

Shared by the website tests; nothing here runs at import.
"""

from __future__ import annotations

import functools
import http.server
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from engine.jupyter.notebooks import is_lab
from engine.source.urls import notebook_url, page_url
from engine.source.translations import LANGS, english_pages

from .background_build import SharedBuild

BUILD_FIXTURE = """
import logging
import sys
logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
from mkdocs.commands.build import build
from mkdocs.config import load_config
config_file, docs_dir, site_dir = sys.argv[1:]
build(load_config(config_file, docs_dir=docs_dir, site_dir=site_dir, strict=True,
                  nav=[{"Fixture": "index.md"}]))
"""


# The tests build the site as if deployed under a sub-path of another host (mkdocs.yml reads the
# address from NMB_SITE_URL): canonical links, alternates, the sitemap and the notebooks' links are
# absolute under it, and the local server serves the site under its path, 404 page included.
SITE_URL = "https://nmb.example/no-magic-boxes/"
SITE_PREFIX = urlsplit(SITE_URL).path  # the path the site lives under
FIXTURE_DOCS = Path(__file__).resolve().parent / "fixture"  # test-only pages: a diagram, an image, code


def build_environment() -> dict[str, str]:
    return {**os.environ, "NMB_SITE_URL": SITE_URL}


def site_builds(root: Path, folder: Path) -> dict[str, SharedBuild]:
    """The two builds the website tests read, each into a folder under `folder`: the project's site
    (`mkdocs build --strict`, snippet outputs from .cache/), and the project's configuration (theme,
    hooks, plugins) over the test-only pages in FIXTURE_DOCS."""
    site, fixture = folder / "built_site", folder / "fixture_site"
    return {
        "built_site": SharedBuild(site, [sys.executable, "-m", "mkdocs", "build", "--strict",
                                         "--site-dir", str(site / "site")], root, build_environment()),
        "fixture_site": SharedBuild(fixture, [sys.executable, "-c", BUILD_FIXTURE, str(root / "mkdocs.yml"),
                                              str(FIXTURE_DOCS), str(fixture / "site")], root, build_environment()),
    }


@dataclass(frozen=True)
class SitePage:
    """A page a reader can open: its language, its URL under the site prefix, its twin's URL."""

    lang: str
    path: str
    twin: str
    twin_lang: str

    @property
    def id(self) -> str:
        return f"{self.lang}:/{self.path}"


NOTEBOOK_PAGES = ("notebook", "workspace")  # a lab's notebook pages: its worked notebook, the learner's workspace


def site_pages(docs: Path, default: str = "en") -> list[SitePage]:
    """Every page built from `docs` in every language, paired with its translation: a lab page's
    notebook page and workspace page too."""
    pages = []
    for source in english_pages(docs):
        src = source.relative_to(docs).as_posix()
        for url in [page_url(src)] + ([notebook_url(src, name=name) for name in NOTEBOOK_PAGES] if is_lab(src) else []):
            for lang in LANGS:
                pages += [SitePage(default, url, f"{lang}/{url}", lang), SitePage(lang, f"{lang}/{url}", url, default)]
    return sorted(pages, key=lambda p: (p.lang, p.path))


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Static files under a path prefix; anything else gets the site's 404 page, as a host serves it."""

    prefix = "/"
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".ipynb": "application/x-ipynb+json", ".js": "text/javascript"}

    def translate_path(self, path: str) -> str:
        path = unquote(urlsplit(path).path)
        if not path.startswith(self.prefix):
            return str(Path(self.directory) / "\0outside-the-site")
        return super().translate_path("/" + path[len(self.prefix):])

    def send_error(self, code, message=None, explain=None):
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


class _HTTPServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """A tab closed while a file was still on its way is no error of the site's; anything else is."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class Server:
    """The built site on 127.0.0.1, on a port the OS picks, until `close()`."""

    def __init__(self, site_dir: Path, prefix: str):
        handler = type("Handler", (_Handler,), {"prefix": prefix})
        self.httpd = _HTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site_dir)))
        self.origin = f"http://127.0.0.1:{self.httpd.server_port}"
        self.root = self.origin + prefix
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str = "") -> str:
        return self.root + path

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
