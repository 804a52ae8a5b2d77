"""Outputs that fit, measured in Chromium: at 1280x800 (a laptop) no output block scrolls sideways and
neither does the page; at 390x844 (a phone) the page never scrolls sideways (a wide block scrolls inside
itself), a chart's text is 11 px or more, and a lab's title does not share its lines with the notebook
button. Every page is measured during its one visit in test_browser.py.
"""

from __future__ import annotations

LAPTOP, PHONE = (1280, 800), (390, 844)

# Every tab's content laid out, so that outputs in a tab not shown are measured too.
SHOW_TABS = "() => { const s = document.createElement('style'); s.id = 'nmb-show-tabs'; s.textContent = '.tabbed-block { display: block !important; }'; document.head.appendChild(s); }"
HIDE_TABS = "() => document.getElementById('nmb-show-tabs').remove()"
MEASURE_JS = """
() => {
  const longest = text => text.split("\\n").reduce((a, b) => b.length > a.length ? b : a, "");
  const outputs = [...document.querySelectorAll(".nmb-output code")];
  const wide = outputs.filter(c => c.scrollWidth > c.clientWidth + 1);
  const small = [...document.querySelectorAll("article svg text")].map(t => {
      const m = t.getScreenCTM();
      return {text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * (m ? Math.hypot(m.a, m.b) : 1)};
    }).filter(t => t.px < 10.95);
  const h1 = document.querySelector("article h1"), button = document.querySelector(".nmb-notebook");
  let beside = false;
  if (h1 && button) {
    const a = h1.getBoundingClientRect(), b = button.getBoundingClientRect();
    beside = b.bottom > a.top + 1 && b.top < a.bottom - 1;
  }
  return {
    outputs: outputs.length,
    wide: wide.map(c => ({width: c.clientWidth, needs: c.scrollWidth, line: longest(c.textContent).slice(0, 100),
                          scrolls: ["auto", "scroll"].includes(getComputedStyle(c).overflowX)})),
    pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
    small: small.map(t => `'${t.text.slice(0, 40)}' at ${t.px.toFixed(1)} px`),
    beside,
  };
}
"""


def measure(page, width: int, height: int) -> dict:
    page.set_viewport_size({"width": width, "height": height})
    return page.evaluate(MEASURE_JS)


def layout_problems(page, width: int, height: int) -> list[str]:
    found = measure(page, width, height)
    problems = []
    if found["pageOverflow"] > 0:
        problems.append(f"{width}px: the page scrolls sideways by {found['pageOverflow']} px")
    if width >= 1280:
        problems += [f"{width}px: output needs {w['needs']} px of {w['width']}: {w['line']!r}" for w in found["wide"]]
    else:
        problems += [f"{width}px: output neither fits nor scrolls: {w['line']!r}" for w in found["wide"] if not w["scrolls"]]
        problems += [f"{width}px: chart text {t}" for t in found["small"]]
        if found["beside"]:
            problems.append(f"{width}px: the notebook button sits beside the title")
    return problems


def fit_problems(page) -> list[str]:
    """Every tab's content shown, the page measured on a laptop and a phone; then the page is left as it was."""
    viewport = page.viewport_size
    page.evaluate(SHOW_TABS)
    problems = layout_problems(page, *LAPTOP) + layout_problems(page, *PHONE)
    page.evaluate(HIDE_TABS)
    page.set_viewport_size(viewport)
    return problems
