"""Every page, in both languages, read in headless Chromium with every other host blocked.

Each page must load with no console error, no failed request and no request for another host;
its diagrams render with a text alternative; it loads no search index until the reader opens search
(test_search.py); axe-core finds no moderate, serious or critical violation in the light and the dark
scheme; its outputs fit a laptop and a phone (layout.py); the copy button copies its code; the palette
toggle switches the scheme; the language selector lands on the same page in the other language.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .browser import RENDER_ALL_JS, axe_violations, diagram_problems
from .layout import fit_problems
from .support import FIXTURE_DOCS, SitePage, site_pages

ROOT = Path(__file__).resolve().parents[2]
PAGES = site_pages(ROOT / "docs")
FIXTURE_PAGES = site_pages(FIXTURE_DOCS)
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
SEARCH_INDEX = "/search/search_index.json"  # requested once the reader opens search (test_search.py)
TOGGLE = "form[data-nmb-palette] label:not([hidden])"


def html_file(site_dir: Path, path: str) -> Path:
    return site_dir / path / "index.html"


def copy_button_problems(page) -> list[str]:
    """The first code block's copy button puts exactly that block's code on the clipboard (the theme adds
    the button as the block comes into view: content.lazy)."""
    blocks = page.locator("pre:has(> code) >> visible=true")
    if blocks.count() == 0:
        return []
    block = blocks.first
    code = block.locator("code").text_content().rstrip()  # innerText is empty while the block is skipped
    block.hover()  # in view: the theme gives it its button
    block.locator(".md-code__button[data-md-type=copy]").click()
    page.wait_for_selector(".md-dialog--active", timeout=5000)
    copied = page.evaluate("() => navigator.clipboard.readText()")
    return [] if copied.rstrip() == code else [f"copy button copied {copied[:80]!r}, the block holds {code[:80]!r}"]


def scheme(page) -> str:
    return page.evaluate("() => document.body.dataset.mdColorScheme")


def switch_scheme(page, expected: str) -> bool:
    """Click the palette toggle; True once the page shows the `expected` scheme."""
    page.locator(TOGGLE).click()
    try:
        page.wait_for_function(f"() => document.body.dataset.mdColorScheme === {expected!r}", timeout=5000)
    except PlaywrightTimeout:
        return False
    return True


def toggle_problems(page) -> list[str]:
    """The palette toggle switches light -> dark -> light; dark is axe-checked for contrast in between."""
    if scheme(page) != "default":
        return [f"a reader who prefers light gets the {scheme(page)!r} scheme"]
    if not switch_scheme(page, "slate"):
        return [f"the toggle left the {scheme(page)!r} scheme, not 'slate'"]
    problems = [f"dark scheme: {v}" for v in axe_violations(page, contrast_only=True)]
    if not switch_scheme(page, "default"):
        problems.append(f"the toggle went back to {scheme(page)!r}, not 'default'")
    return problems


TWIN_STUB = '<!doctype html><html><head><link rel="icon" href="data:,"><title>twin</title></head></html>'


def switcher_problems(page, server, site_page: SitePage) -> list[str]:
    """The language selector leads to this page's twin (whose own visit reads it). The twin's address
    answers with an empty document here: the whole twin loading only to be left at once would cut off its
    requests (its search worker's script among them), whose reports can reach the next visit late."""
    twin = server.url(site_page.twin)

    def stub(route):
        route.fulfill(status=200, content_type="text/html", body=TWIN_STUB)

    page.route(twin, stub)
    try:
        page.locator(".md-select").first.hover()
        link = page.locator(f".md-select__link[hreflang={site_page.twin_lang}]")
        with page.expect_navigation(wait_until="commit"):
            link.click()
    finally:
        page.unroute(twin, stub)
    if page.url != twin:
        return [f"the language selector went to {page.url}, not {twin}"]
    return []


def read_page(reader, server, site_dir: Path, site_page: SitePage) -> list[str]:
    """Everything a reader would notice on one page, as a list of problems."""
    if not html_file(site_dir, site_page.path).is_file():
        return [f"{site_page.path} was not built"]
    visit = reader.open(server.origin, server.url(site_page.path))
    try:
        page = visit.page
        problems = []
        page.evaluate(RENDER_ALL_JS)
        lang = page.evaluate("() => document.documentElement.lang")
        if lang != site_page.lang:
            problems.append(f"lang={lang!r}, not {site_page.lang!r}")
        problems += diagram_problems(page)
        broken = page.evaluate("() => [...document.images].filter(i => !i.complete || !i.naturalWidth).map(i => i.src)")
        problems += [f"image did not load: {src}" for src in broken]
        problems += fit_problems(page)  # before axe, which makes code tokens plain text
        problems += axe_violations(page)
        problems += copy_button_problems(page)
        problems += toggle_problems(page)
        problems += visit.problems()  # before leaving: what the twin loads is its own visit's business
        problems += [f"loaded {url} before search was opened" for url in visit.urls() if url.endswith(SEARCH_INDEX)]
        return problems + switcher_problems(page, server, site_page)
    finally:
        visit.close()


@pytest.mark.parametrize("site_page", PAGES, ids=lambda p: p.id)
def test_page_reads_well_offline(reader, server, built_site, site_page):
    problems = read_page(reader, server, built_site, site_page)
    assert not problems, f"{site_page.id}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("site_page", FIXTURE_PAGES, ids=lambda p: p.id)
def test_fixture_page_with_a_diagram_reads_well_offline(reader, fixture_server, fixture_site, site_page):
    """The same checks on a test-only page that has a diagram, an image and code: proves them non-vacuous."""
    assert html_file(fixture_site, site_page.path).read_text(encoding="utf-8").count('role="img"><title>') == 1
    problems = read_page(reader, fixture_server, fixture_site, site_page)
    assert not problems, f"{site_page.id}:\n  " + "\n  ".join(problems)


def test_blocked_hosts_are_reported(reader, fixture_server):
    """The offline guard is real: a request for another host is blocked and reported, not served."""
    visit = reader.open(fixture_server.origin, fixture_server.url())
    try:
        visit.page.evaluate("() => fetch('https://cdn.example.com/x.js').catch(() => null)")
        assert any("cdn.example.com" in problem for problem in visit.problems())
    finally:
        visit.close()


FAINT_TEXT = """() => { const p = document.createElement("p"); p.textContent = "faint words"; p.style.color = "#777";
                          document.querySelector("article").appendChild(p); }"""


def test_text_too_faint_is_caught_in_both_schemes(reader, fixture_server):
    """The contrast check measures one sample of each kind of text: a paragraph of another colour is its own
    kind, and #777 (4.48:1 on white) fails in the light scheme and in the dark one."""
    visit = reader.open(fixture_server.origin, fixture_server.url())
    try:
        page = visit.page
        assert axe_violations(page, contrast_only=True) == []
        page.evaluate(FAINT_TEXT)
        assert any("color-contrast" in v for v in axe_violations(page, contrast_only=True))
        assert switch_scheme(page, "slate")
        assert any("color-contrast" in v for v in axe_violations(page, contrast_only=True))
    finally:
        visit.close()


@pytest.mark.parametrize("missing", ["no-such-page/", "es/phase-25/no/such/page.html"])
def test_missing_page_gets_the_404_page_in_english(reader, server, missing):
    """Under the site's sub-path and at any depth, with its stylesheets and scripts loading."""
    visit = reader.open(server.origin, server.url(missing), expect_status=404)
    try:
        page = visit.page
        assert page.evaluate("() => document.documentElement.lang") == "en"
        assert "404" in page.locator("h1").inner_text()
        assert axe_violations(page) == []
        assert visit.problems() == []
    finally:
        visit.close()


def home_pages() -> list[SitePage]:
    """The home page, in both languages."""
    return [p for p in PAGES if p.path in ("", "es/")]


def key_pages() -> list[SitePage]:
    """The home page and every lab page, in both languages."""
    return home_pages() + [p for p in PAGES if re.search(r"/lab/[^/]+/$", p.path)]


@pytest.mark.parametrize("site_page", home_pages(), ids=lambda p: p.id)
def test_a_reader_who_prefers_dark_gets_the_dark_scheme(reader, server, site_page):
    visit = reader.open(server.origin, server.url(site_page.path), scheme="dark")
    try:
        assert scheme(visit.page) == "slate"
        assert visit.problems() == []
    finally:
        visit.close()


@pytest.mark.screenshots
@pytest.mark.parametrize("site_page", key_pages(), ids=lambda p: p.id)
def test_screenshots_of_key_pages(reader, server, site_page):
    """Full-page screenshots, light and dark, kept in artifacts/screenshots/ (git-ignored)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    english = site_page.path if site_page.lang == "en" else site_page.twin
    slug = english.strip("/").replace("/", "_") or "home"
    for color in ("light", "dark"):
        visit = reader.open(server.origin, server.url(site_page.path), scheme=color)
        try:
            expected = "slate" if color == "dark" else "default"
            assert scheme(visit.page) == expected
            shot = SCREENSHOTS / f"{slug}.{site_page.lang}.{color}.png"
            visit.page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 10_000
        finally:
            visit.close()
