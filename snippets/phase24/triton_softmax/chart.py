"""The benchmark's chart, drawn at build time from the numbers recorded on the GPU: one SVG per pass,
a bar per implementation and shape, as long as its share of the peak copy bandwidth."""

from html import escape
from pathlib import Path

from engine import current_recording
from snippets.phase24.triton_softmax import benchmark
from snippets.phase24.triton_softmax.results import IMPLS, PASSES, Timing, parse_table

INPUTS = ("recordings/phase24.triton_softmax.benchmark.main.json",)  # redrawn when it is re-recorded
ROOT = Path(__file__).resolve().parents[3]
COLORS = dict(zip(IMPLS, ("#9e9e9e", "#7e57c2", "#1e88e5", "#ef6c00"), strict=True))


def recorded_table() -> tuple[float, list[Timing]] | None:
    """Peak copy bandwidth and timings of the benchmark's GPU recording (None while it is pending)."""
    recording = current_recording(ROOT, Path(benchmark.__file__), "main")
    return None if recording is None else parse_table(recording.output)


def svg_chart(peak_gbps: float, timings: list[Timing], pass_name: str) -> str:
    """Grouped horizontal bars of one pass, as a self-contained SVG: share of the peak, and the time."""
    rows = [t for t in timings if t.pass_name == pass_name]
    shapes = list(dict.fromkeys(t.shape for t in rows))
    bar, gap, left, plot, top = 11, 14, 100, 440, 52
    group = len(IMPLS) * bar + gap
    height = top + len(shapes) * group + 24
    width = left + plot + 130
    scale = plot / max(1.0, max(t.gbps / peak_gbps for t in rows))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12" fill="currentColor" role="img">',
             f'<title>softmax {pass_name}: share of the peak copy bandwidth ({peak_gbps:.0f} GB/s)</title>',
             f'<text x="{left}" y="16" font-weight="bold">{pass_name}: share of the peak copy bandwidth '
             f'({peak_gbps:.0f} GB/s), and median time</text>']
    for i, impl in enumerate(IMPLS):
        x = left + i * 120
        parts.append(f'<rect x="{x}" y="27" width="11" height="11" fill="{COLORS[impl]}"/>'
                     f'<text x="{x + 15}" y="37">{escape(impl)}</text>')
    for g, shape in enumerate(shapes):
        y0 = top + g * group
        parts.append(f'<text x="{left - 8}" y="{y0 + len(IMPLS) * bar / 2 + 4}" text-anchor="end">{shape}</text>')
        for i, impl in enumerate(IMPLS):
            t = next(t for t in rows if t.shape == shape and t.impl == impl)
            share, y = t.gbps / peak_gbps, y0 + i * bar
            parts.append(f'<rect x="{left}" y="{y}" width="{max(share * scale, 0.5):.1f}" height="{bar - 2}" '
                         f'fill="{COLORS[impl]}"><title>{escape(impl)}, {shape}: {t.microseconds:.1f} µs, '
                         f'{share:.0%} of the peak</title></rect>'
                         f'<text x="{left + share * scale + 4:.1f}" y="{y + bar - 2}" font-size="9">'
                         f'{share:.0%} · {t.microseconds:.1f} µs</text>')
    x100 = left + scale
    parts.append(f'<line x1="{x100:.1f}" y1="{top - 6}" x2="{x100:.1f}" y2="{height - 20}" stroke="currentColor" stroke-opacity="0.4" '
                 f'stroke-dasharray="3,3"/><text x="{x100:.1f}" y="{height - 6}" text-anchor="middle">100%</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main():
    table = recorded_table()
    if table is None:
        print("The benchmark has not been recorded on a GPU yet: no numbers to draw.")
        return
    for pass_name in PASSES:
        print(svg_chart(*table, pass_name))
