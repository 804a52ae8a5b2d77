"""The benchmark's chart, drawn at build time from the numbers recorded on the GPU: one SVG per pass,
a bar per implementation and shape, as long as its share of the peak copy bandwidth, in each language."""

from html import escape
from pathlib import Path

from engine import current_recording
from snippets import figure
from snippets.phase24.triton_softmax import benchmark
from snippets.phase24.triton_softmax.results import IMPLS, PASSES, Timing, parse_table

INPUTS = ("recordings/phase24.triton_softmax.benchmark.main.json",)  # redrawn when it is re-recorded
ROOT = Path(__file__).resolve().parents[3]
COLORS = dict(zip(IMPLS, ("#9e9e9e", "#7e57c2", "#1e88e5", "#ef6c00"), strict=True))
WORDS = {
    "en": {"title": "softmax {pass_name}: share of the peak copy bandwidth ({peak} GB/s)",
           "heading": "{pass_name}: share of the peak copy bandwidth ({peak} GB/s), and median time",
           "bar": "{impl}, {shape}: {us} µs, {share} of the peak", "impls": {}, "comma": False},
    "es": {"title": "softmax, {pass_name}: fracción del ancho de banda máximo de copia ({peak} GB/s)",
           "heading": "{pass_name}: fracción del máximo de copia ({peak} GB/s) y tiempo mediano",
           "bar": "{impl}, {shape}: {us} µs, {share} del máximo",
           "impls": {"copy": "copia", "triton (ours)": "triton (el nuestro)"}, "comma": True},
}


def number(value: float, lang: str, percent: bool = False) -> str:
    """A time to 0.1 µs or a share in whole percent, written as the language writes numbers."""
    if not WORDS[lang]["comma"]:
        return f"{value:.0%}" if percent else f"{value:.1f}"
    return f"{value * 100:.0f} %" if percent else f"{value:.1f}".replace(".", ",")


def recorded_table() -> tuple[float, list[Timing]] | None:
    """Peak copy bandwidth and timings of the benchmark's GPU recording (None while it is pending)."""
    recording = current_recording(ROOT, Path(benchmark.__file__), "main")
    return None if recording is None else parse_table(recording.output)


def svg_chart(peak_gbps: float, timings: list[Timing], pass_name: str, lang: str) -> str:
    """Grouped horizontal bars of one pass, as a self-contained SVG: share of the peak, and the time."""
    words, peak = WORDS[lang], f"{peak_gbps:.0f}"
    rows = [t for t in timings if t.pass_name == pass_name]
    shapes = list(dict.fromkeys(t.shape for t in rows))
    bar, gap, left, plot, top = 11, 14, 100, 440, 52
    group = len(IMPLS) * bar + gap
    height = top + len(shapes) * group + 24
    width = left + plot + 130
    scale = plot / max(1.0, max(t.gbps / peak_gbps for t in rows))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12" fill="currentColor" role="img" '
             f'lang="{lang}">',
             f'<title>{escape(words["title"].format(pass_name=pass_name, peak=peak))}</title>',
             f'<text x="{left}" y="16" font-weight="bold">'
             f'{escape(words["heading"].format(pass_name=pass_name, peak=peak))}</text>']
    for i, impl in enumerate(IMPLS):
        x = left + i * 120
        parts.append(f'<rect x="{x}" y="27" width="11" height="11" fill="{COLORS[impl]}"/>'
                     f'<text x="{x + 15}" y="37">{escape(words["impls"].get(impl, impl))}</text>')
    for g, shape in enumerate(shapes):
        y0 = top + g * group
        parts.append(f'<text x="{left - 8}" y="{y0 + len(IMPLS) * bar / 2 + 4}" text-anchor="end">{shape}</text>')
        for i, impl in enumerate(IMPLS):
            t = next(t for t in rows if t.shape == shape and t.impl == impl)
            share, y = t.gbps / peak_gbps, y0 + i * bar
            us, percent = number(t.microseconds, lang), number(share, lang, percent=True)
            tip = words["bar"].format(impl=words["impls"].get(impl, impl), shape=shape, us=us, share=percent)
            parts.append(f'<rect x="{left}" y="{y}" width="{max(share * scale, 0.5):.1f}" height="{bar - 2}" '
                         f'fill="{COLORS[impl]}"><title>{escape(tip)}</title></rect>'
                         f'<text x="{left + share * scale + 4:.1f}" y="{y + bar - 2}" font-size="9">'
                         f'{percent} · {us} µs</text>')
    x100 = left + scale
    parts.append(f'<line x1="{x100:.1f}" y1="{top - 6}" x2="{x100:.1f}" y2="{height - 20}" stroke="currentColor" stroke-opacity="0.4" '
                 f'stroke-dasharray="3,3"/><text x="{x100:.1f}" y="{height - 6}" text-anchor="middle">{number(1, lang, percent=True)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main():
    table = recorded_table()
    if table is None:
        print("The benchmark has not been recorded on a GPU yet: no numbers to draw.")
        return
    print(figure.in_languages("softmax-chart", lambda lang: (
        "\n".join(svg_chart(*table, pass_name, lang) for pass_name in PASSES), "")))
