"""What a reader downloads to open each page (engine/site/weight.py): its HTML and what it loads as it opens,
gzipped as a host serves it, under a budget; the theme's scripts and nothing else, so no diagram library."""

from __future__ import annotations

import re
from pathlib import Path

from engine.site import weight

from .support import SITE_PREFIX

PAGE_BUDGET = 150 * 1024  # gzipped bytes: the theme's stylesheets and scripts are about 76 KiB of it
SCRIPTS = re.compile(r"assets/javascripts/(bundle\.\w+\.min\.js|workers/search\.\w+\.min\.js|readers\.js)")


def test_no_page_weighs_more_than_the_budget(built_site):
    weights = weight.site_weights(built_site, SITE_PREFIX)
    heavy = [f"/{w.page}: {w.gzipped / 1024:.0f} KiB" for w in weights if w.gzipped > PAGE_BUDGET]
    assert not heavy, f"over {PAGE_BUDGET / 1024:.0f} KiB gzipped: {heavy}"


def test_pages_load_the_themes_scripts_and_no_other(built_site):
    loaded = {f for w in weight.site_weights(built_site, SITE_PREFIX) for f in w.files}
    others = sorted(f for f in loaded if f.endswith(".js") and not SCRIPTS.fullmatch(f))
    assert not others, f"scripts no page should need (a diagram library?): {others}"


def test_no_page_mounts_the_themes_palette_component(built_site):
    """The toggle runs from the header (engine/theme/partials/javascripts/palette.html): the theme's own
    palette component restyled a whole page three times as it loaded."""
    mounted = sorted(str(page.relative_to(built_site)) for page in built_site.rglob("*.html")
                     if 'data-md-component="palette"' in page.read_text(encoding="utf-8"))
    assert not mounted, f"pages that mount the theme's palette component: {mounted}"


def test_the_weight_counts_what_a_page_loads(tmp_path: Path):
    """The page, its stylesheet, script and image, the theme's search worker: not other hosts or data."""
    (tmp_path / "a").mkdir()
    for name, body in {"s.css": "b{}", "j.js": "1", "i.png": "png", "w.js": "2"}.items():
        (tmp_path / name).write_text(body)
    page = tmp_path / "a" / "index.html"
    page.write_text('<link rel="stylesheet" href="../s.css"><script src="../j.js" defer></script>'
                    '<img src="../i.png"><img src="data:image/png;base64,AA"><script src="https://x.example/y.js"></script>'
                    '<script id="__config" type="application/json">{"base": "..", "search": "../w.js"}</script>')
    found = weight.weight(tmp_path, page)
    assert found.page == "a/" and found.files == ("i.png", "j.js", "s.css", "w.js")
    assert found.raw == page.stat().st_size + 3 + 1 + 3 + 1
