"""What a reader downloads to open each page of the built site: its HTML and every file it loads as it
opens (stylesheets, scripts, images, its icon, the search worker the theme starts), raw and gzipped as
a host serves them. The search index is not among them: it waits until the reader opens search
(engine/theme/partials/search-on-open.html). `make bench` prints these figures; the website tests hold
them to their budgets (tests/website/test_weight.py).

    python -m engine.site.weight SITE_DIR [PATH]   # every page's weight, heaviest first, and each search
                                              # index (PATH: where the site is served, default /)
"""

from __future__ import annotations

import functools
import gzip
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

LOADED = re.compile(r'<(?:link\b[^>]*\brel="(?:stylesheet|icon)"[^>]*\bhref|script\b[^>]*\bsrc|img\b[^>]*\bsrc)="([^"]+)"')
CONFIG = re.compile(r'<script id="__config" type="application/json">(.*?)</script>', re.DOTALL)
ORIGIN = "http://site"  # a stand-in: addresses are resolved against the page's own


@dataclass(frozen=True)
class Weight:
    """A page (its path under the site), the files it loads, and the bytes of all of them with its HTML."""

    page: str
    files: tuple[str, ...]
    raw: int
    gzipped: int


@functools.lru_cache(maxsize=None)
def sizes(file: Path) -> tuple[int, int]:
    """(bytes, gzipped bytes) of one file."""
    data = file.read_bytes()
    return len(data), len(gzip.compress(data, compresslevel=6, mtime=0))


def loads(site: Path, page: Path, prefix: str = "/") -> list[Path]:
    """The files of the site (served under the path `prefix`) that `page` loads as it opens (data:
    addresses and other hosts left out)."""
    html = page.read_text(encoding="utf-8")
    addresses = LOADED.findall(html)
    if config := CONFIG.search(html):
        addresses.append(json.loads(config[1])["search"])  # the theme starts its search worker on every page
    here = ORIGIN + prefix + page.parent.relative_to(site).as_posix().removeprefix(".") + "/"
    files = []
    for address in addresses:
        url = urlsplit(urljoin(here, address))
        path = unquote(url.path)
        if f"{url.scheme}://{url.netloc}" == ORIGIN and path.startswith(prefix):
            file = site / path[len(prefix):]
            files.append(file / "index.html" if file.is_dir() else file)
    return sorted(set(files))


def address(site: Path, page: Path) -> str:
    """A page's address under the site: "" for the home page, "es/week-09/", "404.html"."""
    path = page.relative_to(site).as_posix()
    return path.removesuffix("index.html")


def weight(site: Path, page: Path, prefix: str = "/") -> Weight:
    files = loads(site, page, prefix)
    raw, gzipped = (sum(pair) for pair in zip(*(sizes(f) for f in [page, *files])))
    return Weight(address(site, page), tuple(f.relative_to(site).as_posix() for f in files), raw, gzipped)


def pages(site: Path) -> list[Path]:
    """Every page a reader opens: each index.html, and the 404 page."""
    return sorted(site.rglob("index.html")) + [site / "404.html"]


def site_weights(site: Path, prefix: str = "/") -> list[Weight]:
    """Every page's weight, heaviest (gzipped) first."""
    return sorted((weight(site, page, prefix) for page in pages(site)), key=lambda w: -w.gzipped)


def search_indexes(site: Path) -> dict[str, int]:
    """Each language's search index: its path under the site, and its bytes."""
    return {f.relative_to(site).as_posix(): f.stat().st_size for f in sorted(site.rglob("search_index.json"))}


def report(site: Path, prefix: str = "/") -> list[str]:
    """The lines `make bench` prints: every page's weight, then each search index's size."""
    lines = [f"{'page (HTML and what it loads as it opens)':58} {'KiB':>7} {'gzipped':>8}"]
    lines += [f"  /{w.page:55} {w.raw / 1024:7.0f} {w.gzipped / 1024:8.0f}" for w in site_weights(site, prefix)]
    lines += [f"  search index {path:43} {size / 1024:7.0f}" for path, size in search_indexes(site).items()]
    return lines


if __name__ == "__main__":
    print("\n".join(report(Path(sys.argv[1]), *sys.argv[2:])))
