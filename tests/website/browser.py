"""Headless Chromium (Debian's package) reading the local site, with every other host blocked.

Playwright drives the browser at `NMB_CHROMIUM` (default `/usr/bin/chromium`); nothing here
downloads a browser. Every page opens in a new tab of one context and leaves nothing stored behind
it, so a palette chosen on one page never leaks into the next.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import axe_playwright_python

CHROMIUM = os.environ.get("NMB_CHROMIUM", "/usr/bin/chromium")
AXE_SOURCE = (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")
SERIOUS = ("serious", "critical")
# Run in every page before its own scripts.
INIT_SCRIPT = """
// Material draws each diagram into a closed shadow root: open it, so the tests can look inside.
const attachShadow = Element.prototype.attachShadow;
Element.prototype.attachShadow = function (init) { return attachShadow.call(this, {...init, mode: "open"}); };
// axe measures colours: none may be caught halfway through a theme transition.
document.addEventListener("DOMContentLoaded", () => {
  const style = document.createElement("style");
  style.textContent = "*, *::before, *::after { transition: none !important; }";
  document.head.appendChild(style);
});
"""
DIAGRAMS_JS = """
() => [...document.querySelectorAll("div.mermaid")].map(d => {
  const svg = d.shadowRoot && d.shadowRoot.querySelector("svg");
  if (!svg) return {rendered: false};
  const ids = (svg.getAttribute("aria-labelledby") || "").split(/\\s+/).filter(Boolean);
  const name = ids.map(id => (d.shadowRoot.getElementById(id) || {}).textContent || "").join(" ").trim();
  const describedby = (svg.getAttribute("aria-describedby") || "").split(/\\s+/).filter(Boolean);
  const description = describedby.map(id => (d.shadowRoot.getElementById(id) || {}).textContent || "").join(" ").trim();
  const box = svg.getBoundingClientRect();
  return {rendered: true, name, description, width: box.width, height: box.height,
          error: /Syntax error|Parse error/i.test(svg.textContent)};
})
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
    """A page opened in a tab of its own, and everything that went wrong while it loaded."""

    page: object
    origin: str
    blocked: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
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

    def problems(self) -> list[str]:
        """Requests that left the machine or failed, console errors and uncaught exceptions."""
        self.settle()
        return ([f"asked another host: {url}" for url in self.blocked]
                + [f"failed request: {what}" for what in self.failed]
                + [f"console: {text}" for text in self.console_errors])

    def close(self) -> None:
        """Close the tab, forgetting what the page stored (a palette chosen here must not leak)."""
        self.page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        self.page.close()


class Reader:
    """One browser context, each page in a new tab, every request for another host blocked."""

    def __init__(self, browser):
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.context.add_init_script(INIT_SCRIPT)

    def open(self, origin: str, url: str, scheme: str = "light", expect_status: int = 200) -> Visit:
        """Open `url` with `prefers-color-scheme: scheme`; block and record every non-local request."""
        self.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
        page = self.context.new_page()
        page.emulate_media(color_scheme=scheme)
        visit = Visit(page, origin)

        def block(route):
            visit.blocked.append(route.request.url)
            route.abort("blockedbyclient")

        def finished(request):
            visit.in_flight.discard(request)

        def failed(request):
            finished(request)
            if request.url not in visit.blocked:
                visit.failed.append(f"{request.url} ({request.failure})")

        def response(resp):
            if resp.status >= 400 and not (resp.url == url and resp.status == expect_status):
                visit.failed.append(f"{resp.url} (HTTP {resp.status})")

        def console(message):
            where = message.location.get("url")
            own_status = where == url and f"status of {expect_status}" in message.text
            if message.type == "error" and not (expect_status >= 400 and own_status):
                visit.console_errors.append(f"{message.text} at {where}")

        page.route(re.compile(rf"^(?!{re.escape(origin)}/)"), block)
        page.on("request", lambda request: visit.in_flight.add(request))
        page.on("requestfinished", finished)
        page.on("requestfailed", failed)
        page.on("response", response)
        page.on("console", console)
        page.on("pageerror", lambda error: visit.console_errors.append(f"uncaught: {error}"))
        answer = page.goto(url, wait_until="load")
        if answer is None or answer.status != expect_status:
            visit.failed.append(f"{url} answered {answer.status if answer else None}, not {expect_status}")
        return visit

    def close(self) -> None:
        self.context.close()


def axe_violations(page, rules: list[str] | None = None) -> list[str]:
    """Serious and critical axe-core violations on the page (all rules, or only `rules`)."""
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.evaluate(AXE_SOURCE)
    options = {"resultTypes": ["violations"]}
    if rules:
        options["runOnly"] = {"type": "rule", "values": rules}
    violations = page.evaluate("options => axe.run(document, options).then(r => r.violations)", options)
    return [f"axe {v['id']} ({v['impact']}): {v['help']} at "
            + "; ".join(" ".join(map(str, n["target"])) for n in v["nodes"][:5])
            for v in violations if v["impact"] in SERIOUS]


def diagram_problems(page, expected: int) -> list[str]:
    """The `expected` diagrams (counted in the page's HTML) rendered, sized, error-free, with a text alternative."""
    if expected:
        page.wait_for_function(f"() => [...document.querySelectorAll('div.mermaid')]"
                               f".filter(d => d.shadowRoot && d.shadowRoot.querySelector('svg')).length >= {expected}",
                               timeout=15000)
    diagrams = page.evaluate(DIAGRAMS_JS)
    problems = [] if len(diagrams) == expected else [f"{expected} diagram(s) in the HTML, {len(diagrams)} drawn"]
    for number, diagram in enumerate(diagrams, 1):
        if not diagram["rendered"] or diagram["error"] or diagram["width"] < 20 or diagram["height"] < 20:
            problems.append(f"diagram {number} did not render: {diagram}")
        elif not diagram["name"] or not diagram["description"]:
            problems.append(f"diagram {number} has no text alternative (give it accTitle: and accDescr:)")
    return problems
