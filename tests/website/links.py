"""Every internal link, anchor and resource of a built site resolves; nothing loads from another host.

Pure functions over the files of a built site (no browser), used by test_links.py.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

SKIPPED_SCHEMES = ("mailto:", "javascript:", "data:", "tel:", "blob:")
# Attributes whose URL the browser fetches by itself when it shows the page.
RESOURCES = {("script", "src"), ("img", "src"), ("source", "src"), ("iframe", "src"), ("video", "src"),
             ("audio", "src"), ("embed", "src"), ("object", "data"), ("link", "href")}
LINK_RELS_FETCHED = {"stylesheet", "icon", "preload", "modulepreload", "prefetch", "manifest", "preconnect", "dns-prefetch"}
CSS_URL = re.compile(r"url\(\s*['\"]?(https?:)?//", re.IGNORECASE)
# In a notebook's Markdown cells: code (whose brackets are no links), links and the anchors cells keep.
CODE = re.compile(r"^([ \t]*)(`{3,}|~{3,}).*?^\1\2[ \t]*$|`[^`\n]*`", re.MULTILINE | re.DOTALL)
MARKDOWN_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)")
HTML_LINK = re.compile(r"<a\s[^>]*\bhref=\"([^\"]+)\"")
CELL_ANCHOR = re.compile(r"<a\s[^>]*\bid=\"([^\"]+)\"")


@dataclass
class Parsed:
    ids: set[str] = field(default_factory=set)
    refs: list[tuple[str, str, str, str]] = field(default_factory=list)  # (tag, attribute, url, rel)
    images: list[tuple[str, str | None]] = field(default_factory=list)  # (src, alt)


class _Parser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parsed = Parsed()

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if attributes.get("id"):
            self.parsed.ids.add(attributes["id"])
        if tag == "a" and attributes.get("name"):
            self.parsed.ids.add(attributes["name"])
        for name in ("href", "src", "data"):
            if attributes.get(name) is not None:
                self.parsed.refs.append((tag, name, attributes[name], attributes.get("rel") or ""))
        if tag == "img":
            self.parsed.images.append((attributes.get("src", ""), attributes.get("alt")))


def parse(html: str) -> Parsed:
    parser = _Parser()
    parser.feed(html)
    return parser.parsed


def page_url(site_dir: Path, file: Path, prefix: str) -> str:
    """The URL path a page is served at (`index.html` is its folder); 404.html is served anywhere, so the root."""
    rel = file.relative_to(site_dir).as_posix()
    if rel == "404.html":
        return prefix
    return prefix + (rel[: -len("index.html")] if rel.endswith("index.html") else rel)


def target_file(site_dir: Path, path: str, prefix: str) -> Path | None:
    """The file a URL path under the prefix names, or None when it is outside the site."""
    if not path.startswith(prefix) and path + "/" != prefix:
        return None
    rel = unquote(path[len(prefix):])
    if rel.startswith("/"):
        return None  # "//" in the path: not a URL the site was built with
    candidate = site_dir / rel
    if rel == "" or rel.endswith("/") or candidate.is_dir():
        candidate = candidate / "index.html"
    return candidate


class Site:
    """The built site: parsed pages, cached, and the checks over them."""

    def __init__(self, site_dir: Path, site_url: str):
        self.dir = site_dir
        self.site_url = site_url if site_url.endswith("/") else site_url + "/"
        self.prefix = urlsplit(self.site_url).path or "/"
        self.absolute = bool(urlsplit(self.site_url).scheme)  # a site_url with a host, not just a path
        self._parsed: dict[Path, Parsed] = {}

    def pages(self) -> list[Path]:
        return sorted(self.dir.rglob("*.html"))

    def parsed(self, file: Path) -> Parsed:
        if file not in self._parsed:
            self._parsed[file] = parse(file.read_text(encoding="utf-8"))
        return self._parsed[file]

    def resolve(self, base: str, url: str) -> tuple[Path | None, str] | None:
        """(file, fragment) a reference leads to; None when it leaves the site (or is not a URL)."""
        if url.startswith(SKIPPED_SCHEMES):
            return None
        if re.match(r"^([a-z][a-z0-9+.-]*:)?//", url, re.IGNORECASE):
            if not (self.absolute and url.startswith(self.site_url)):
                return None  # another site
            url = self.prefix + url[len(self.site_url):]
        parts = urlsplit(urljoin(base, url))
        return target_file(self.dir, parts.path, self.prefix), parts.fragment

    def link_problems(self, file: Path) -> list[str]:
        """Broken internal links and anchors of one page, and resources it would fetch from another host."""
        name = file.relative_to(self.dir).as_posix()
        base = "http://site.invalid" + page_url(self.dir, file, self.prefix)
        problems = []
        for tag, attribute, url, rel in self.parsed(file).refs:
            fetched = (tag, attribute) in RESOURCES and (tag != "link" or set(rel.split()) & LINK_RELS_FETCHED)
            external = (re.match(r"^([a-z][a-z0-9+.-]*:)?//", url, re.IGNORECASE)
                        and not (self.absolute and url.startswith(self.site_url)))
            if fetched and external:
                problems.append(f"{name}: <{tag} {attribute}={url!r}> loads from another host")
                continue
            problems += self._target_problems(name, base, url)
        return problems

    def _target_problems(self, name: str, base: str, url: str) -> list[str]:
        """What is wrong with where `url`, read on the page at `base`, leads (nothing when it leaves the site)."""
        resolved = self.resolve(base, url)
        if resolved is None:
            return []
        target, fragment = resolved
        if target is None:
            return [f"{name}: {url!r} leads outside the site"]
        if not target.is_file():
            return [f"{name}: {url!r} leads to a missing file ({target.relative_to(self.dir).as_posix()})"]
        if fragment and target.suffix == ".html" and unquote(fragment) not in self.parsed(target).ids:
            return [f"{name}: {url!r}: no id {fragment!r} in {target.relative_to(self.dir).as_posix()}"]
        return []

    def notebooks(self) -> list[Path]:
        return sorted(self.dir.rglob("*.ipynb"))

    def notebook_problems(self, notebook: Path) -> list[str]:
        """Dead links in a notebook's Markdown cells, as a reader who downloaded it or reads its page
        follows them: an in-page link names an anchor one of its cells keeps (`<a id="...">`), any
        other leads to a page (and anchor) of the site, from the notebook's own folder."""
        name = notebook.relative_to(self.dir).as_posix()
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        texts = [CODE.sub("", "".join(cell["source"])) for cell in cells if cell["cell_type"] == "markdown"]
        ids = {anchor for text in texts for anchor in CELL_ANCHOR.findall(text)}
        base = "http://site.invalid" + page_url(self.dir, notebook, self.prefix)
        problems = []
        for url in (url for text in texts for url in MARKDOWN_LINK.findall(text) + HTML_LINK.findall(text)):
            if url.startswith("#"):
                if unquote(url[1:]) not in ids:
                    problems.append(f"{name}: {url!r}: no cell keeps the anchor {url[1:]!r}")
            else:
                problems += self._target_problems(name, base, url)
        return problems

    def image_problems(self, file: Path) -> list[str]:
        """Images without a text alternative."""
        name = file.relative_to(self.dir).as_posix()
        return [f"{name}: image {src!r} has no alt text" for src, alt in self.parsed(file).images if not (alt or "").strip()]

    def search_problems(self) -> list[str]:
        """Every entry of every language's search index leads to a page and anchor that exist."""
        problems = []
        for index in sorted(self.dir.rglob("search/search_index.json")):
            root = index.parent.parent.relative_to(self.dir).as_posix()
            base = "http://site.invalid" + self.prefix + ("" if root == "." else root + "/")
            for doc in json.loads(index.read_text(encoding="utf-8"))["docs"]:
                target, fragment = self.resolve(base, doc["location"]) or (None, "")
                if target is None or not target.is_file():
                    problems.append(f"{index.relative_to(self.dir)}: {doc['location']!r} leads to no page")
                elif fragment and unquote(fragment) not in self.parsed(target).ids:
                    problems.append(f"{index.relative_to(self.dir)}: {doc['location']!r}: no such anchor")
        return problems

    def stylesheet_problems(self) -> list[str]:
        """Stylesheets that would fetch from another host (fonts, images)."""
        return [f"{css.relative_to(self.dir)} loads from another host" for css in sorted(self.dir.rglob("*.css"))
                if CSS_URL.search(css.read_text(encoding="utf-8", errors="replace"))]
