"""Headless Chromium (Debian's package) reading the local site, with every other host blocked.

Playwright drives the browser at `NMB_CHROMIUM` (default `/usr/bin/chromium`); nothing here
downloads a browser. Every page opens in the same tab of one context and leaves nothing stored behind
it, so a palette chosen on one page never leaks into the next.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import axe_playwright_python

CHROMIUM = os.environ.get("NMB_CHROMIUM", "/usr/bin/chromium")
AXE_SOURCE = (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")
VIEWPORT = {"width": 1280, "height": 900}
REPORTED = ("moderate", "serious", "critical")  # every impact but "minor"
NETWORK_SCHEMES = {"http", "https", "ws", "wss"}  # requests that could leave the machine (not data: or blob:)
# Run in every page before its own scripts: axe measures colours, none may be caught halfway through a
# theme transition.
INIT_SCRIPT = """
document.addEventListener("DOMContentLoaded", () => {
  const style = document.createElement("style");
  style.textContent = "*, *::before, *::after { transition: none !important; }";
  document.head.appendChild(style);
});
"""
# Every diagram is an inline SVG a snippet drew (no diagram library: test_markup.py), icons left out.
# Every block rendered, as a reader who scrolls through sees it: off screen the site skips a block's layout
# (content-visibility in readers.css), and the geometry the checks read would shift under them as they scroll.
RENDER_ALL_JS = """() => { const s = document.createElement('style');
  s.textContent = '* { content-visibility: visible !important; }'; document.head.appendChild(s); }"""
DIAGRAMS_JS = """
() => {
  const named = svg => {
    const ids = (svg.getAttribute("aria-labelledby") || "").split(/\\s+/).filter(Boolean);
    const title = svg.querySelector(":scope > title");
    return [svg.getAttribute("aria-label") || "",
            ...ids.map(id => (document.getElementById(id) || {}).textContent || ""),
            title ? title.textContent : ""].join(" ").trim();
  };
  const icons = ".md-icon, .twemoji, .md-button, .md-clipboard, .md-content__button, .headerlink, button, label";
  return [...document.querySelectorAll("article svg")]
    .filter(svg => !svg.closest(icons) && !svg.parentElement.closest("svg"))
    .map(svg => {
      const box = svg.getBoundingClientRect();
      return {name: named(svg), role: svg.getAttribute("role") || "", width: box.width, height: box.height};
    });
}
"""
# Code is coloured by token class: one element per class (and per block style) stands for the rest,
# so axe measures a few dozen spans instead of thousands (seconds per page on long pages).
SAMPLE_CODE_JS = """
() => {
  const seen = new Set();
  for (const element of document.querySelectorAll("pre code, pre code span")) {
    const block = element.closest(".highlight");
    const key = [block ? block.className : "", element.tagName, element.className].join("|");
    if (!seen.has(key)) { seen.add(key); element.setAttribute("data-nmb-sample", ""); }
  }
  return seen.size;
}
"""


# Text outside code blocks the same way: elements holding text are grouped by what axe's contrast check
# reads (text colour, size, weight, opacity, shadow, and the backgrounds behind it up to the first opaque
# one); one shown element of each group, the one with the fewest descendants, is measured for the rest.
# Recomputed for each scheme.
SAMPLE_TEXT_JS = """
() => {
  document.querySelectorAll("[data-nmb-text]").forEach(e => e.removeAttribute("data-nmb-text"));
  const owners = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const owner = n.parentElement;
    if (n.textContent.trim() && owner && !owner.closest("pre") && owner.getClientRects().length) owners.add(owner);
  }
  const groups = new Map();
  for (const element of owners) {
    const s = getComputedStyle(element);
    const key = [s.color, s.fontSize, s.fontWeight, s.opacity, s.textShadow, s.visibility];
    for (let a = element; a; a = a.parentElement) {
      const c = getComputedStyle(a);
      key.push(c.backgroundColor, c.backgroundImage, c.opacity, c.mixBlendMode, c.filter);
      if (c.backgroundColor.startsWith("rgb(")) break;  // opaque: nothing behind it shows through
    }
    const size = element.getElementsByTagName("*").length, group = key.join("|"), best = groups.get(group);
    if (!best || size < best.size) groups.set(group, {element, size});
  }
  groups.forEach(({element}) => element.setAttribute("data-nmb-text", ""));
  return groups.size;
}
"""
# After sampling: every other token span becomes the text it holds (same text, same layout, no colour left
# to check), so axe walks a page of about a thousand elements instead of several thousand. A span with
# any attribute but its class, or holding an element, stays.
FLATTEN_CODE_JS = """
() => {
  for (const span of [...document.querySelectorAll("pre code span:not([data-nmb-sample])")].reverse()) {
    const onlyClass = [...span.attributes].every(a => a.name === "class");
    if (onlyClass && [...span.childNodes].every(n => n.nodeType === Node.TEXT_NODE)) {
      span.replaceWith(document.createTextNode(span.textContent));
    }
  }
  document.querySelectorAll("pre code").forEach(code => code.normalize());
}
"""


def launch(playwright):
    """Chromium from the system, resolving no host but 127.0.0.1 (so nothing can leave the machine)."""
    if not Path(CHROMIUM).is_file():
        raise RuntimeError(f"no Chromium at {CHROMIUM}: `make test` installs Debian's chromium package "
                           "(or set NMB_CHROMIUM to a Chromium or Chrome binary)")
    return playwright.chromium.launch(executable_path=CHROMIUM,
                                      args=["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"])


@dataclass
class Visit:
    """A page opened in the reader's tab, and everything that went wrong while it loaded."""

    page: object
    origin: str
    url: str
    expect_status: int = 200
    blocked: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    requests: set = field(default_factory=set)  # every request this page made (not the page before it)
    in_flight: set = field(default_factory=set)

    def settle(self, quiet_ms: int = 150, timeout_s: float = 10) -> None:
        """Wait until no request has been in flight for `quiet_ms` (late fetches fail loudly too)."""
        deadline = time.monotonic() + timeout_s
        quiet_since = None
        while time.monotonic() < deadline:
            if self.in_flight:
                quiet_since = None
            elif quiet_since is None:
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since >= quiet_ms / 1000:
                return
            self.page.wait_for_timeout(25)
        self.failed.append(f"still loading after {timeout_s} s: {sorted(r.url for r in self.in_flight)}")

    def urls(self) -> list[str]:
        """Every address this visit's page asked for, so far."""
        return sorted(request.url for request in self.requests)

    def problems(self) -> list[str]:
        """Requests that left the machine or failed, console errors and uncaught exceptions."""
        self.settle()
        return ([f"asked another host: {url}" for url in self.blocked]
                + [f"failed request: {what}" for what in self.failed]
                + [f"console: {text}" for text in self.console_errors])

    def close(self) -> None:
        """Leave the page, forgetting what it stored (a palette chosen here must not leak)."""
        self.page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        self.page.goto("about:blank")


class Reader:
    """One browser context and one tab that every visit navigates; a request for another host fails (the
    browser resolves no other host: `launch`) and is reported.

    A new tab per page would start a renderer process per page and compile the theme's scripts again:
    reusing one halves what opening a page costs. Nothing is routed through Playwright either, which
    would turn the browser's HTTP cache off. Each visit starts from a blank page, with nothing stored
    and the reader's system preference for the colour scheme."""

    def __init__(self, browser):
        self.context = browser.new_context(viewport=VIEWPORT)
        self.context.add_init_script(INIT_SCRIPT)
        # The theme remembers a toggled palette in localStorage, which would outrank `scheme` on every
        # later page: each page starts from the reader's system preference.
        self.context.add_init_script("Object.keys(localStorage).filter(k => k.endsWith('__palette'))"
                                     ".forEach(k => localStorage.removeItem(k))")
        self.page = None
        self.visit: Visit | None = None
        self.granted: set[str] = set()  # the origins that may use the clipboard

    def _tab(self):
        if self.page is None or self.page.is_closed():
            self.page = self.context.new_page()
            self.page.on("request", self._request)
            self.page.on("requestfinished", self._finished)
            self.page.on("requestfailed", self._failed)
            self.page.on("response", self._response)
            self.page.on("console", self._console)
            self.page.on("pageerror", lambda error: self.visit.console_errors.append(f"uncaught: {error}"))
        return self.page

    def _request(self, request):
        visit = self.visit
        visit.requests.add(request)
        visit.in_flight.add(request)
        if urlsplit(request.url).scheme in NETWORK_SCHEMES and not request.url.startswith(visit.origin + "/"):
            visit.blocked.append(request.url)

    def _finished(self, request):
        self.visit.in_flight.discard(request)

    def _failed(self, request):
        """A request of this visit's page that failed (those of the page before, cut off when it was left, are
        that page's business)."""
        self._finished(request)
        if request in self.visit.requests and request.url not in self.visit.blocked:
            self.visit.failed.append(f"{request.url} ({request.failure})")

    def _response(self, resp):
        visit = self.visit
        if resp.request not in visit.requests:
            return
        if resp.status >= 400 and not (resp.url == visit.url and resp.status == visit.expect_status):
            visit.failed.append(f"{resp.url} (HTTP {resp.status})")

    def _console(self, message):
        visit = self.visit
        where = message.location.get("url")
        own_status = where == visit.url and f"status of {visit.expect_status}" in message.text
        if message.type == "error" and not (visit.expect_status >= 400 and own_status):
            visit.console_errors.append(f"{message.text} at {where}")

    def open(self, origin: str, url: str, scheme: str = "light", expect_status: int = 200) -> Visit:
        """Open `url` with `prefers-color-scheme: scheme`, recording every request for another origin."""
        page = self._tab()
        if origin not in self.granted:
            self.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
            self.granted.add(origin)
        page.set_viewport_size(VIEWPORT)  # as a visit that failed halfway may have left it
        page.emulate_media(color_scheme=scheme)
        self.visit = visit = Visit(page, origin, url, expect_status)
        answer = page.goto(url, wait_until="load")
        if answer is None or answer.status != expect_status:
            visit.failed.append(f"{url} answered {answer.status if answer else None}, not {expect_status}")
        return visit

    def close(self) -> None:
        self.context.close()


def _axe(page, options: dict, contrast_on: str) -> list[str]:
    """axe-core's violations in the whole page, colour contrast measured on the elements `contrast_on`
    selects (one axe.run: each builds its own copy of the page's whole tree first)."""
    violations = page.evaluate(
        """([options, selector]) => {
             axe.configure({rules: [{id: "color-contrast", selector}]});
             return axe.run(document, options).then(r => r.violations);
           }""", [{**options, "resultTypes": ["violations"]}, contrast_on])
    return [f"axe {v['id']} ({v['impact']}): {v['help']} at "
            + "; ".join(" ".join(map(str, n["target"])) for n in v["nodes"][:5])
            for v in violations if v["impact"] in REPORTED]


def axe_violations(page, contrast_only: bool = False) -> list[str]:
    """Moderate, serious and critical axe-core violations on the page: every rule, or colour contrast only.

    Contrast is measured on one sample of each kind of text outside code blocks (SAMPLE_TEXT_JS) and of
    each kind of highlighted token inside them; the other tokens are made plain text first (FLATTEN_CODE_JS)."""
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.evaluate(AXE_SOURCE)
    samples = page.evaluate(SAMPLE_CODE_JS)
    page.evaluate(FLATTEN_CODE_JS)
    texts = page.evaluate(SAMPLE_TEXT_JS)
    sampled = ", ".join((["[data-nmb-text]"] if texts else []) + (["[data-nmb-sample]"] if samples else []))
    # Contrast reads computed styles: it needs none of the stylesheets axe fetches and parses first (preload).
    options = {"runOnly": {"type": "rule", "values": ["color-contrast"]}, "preload": False} if contrast_only else {}
    return _axe(page, options, sampled or "*")


def diagram_problems(page) -> list[str]:
    """Every diagram (an inline SVG) drawn, sized, with a text alternative."""
    problems = []
    for number, diagram in enumerate(page.evaluate(DIAGRAMS_JS), 1):
        if diagram["width"] < 20 or diagram["height"] < 20:
            problems.append(f"diagram {number} did not render: {diagram}")
        elif not diagram["name"] or not diagram["role"]:
            problems.append(f'diagram {number} has no text alternative: give the <svg> role="img" and a <title>')
    return problems
