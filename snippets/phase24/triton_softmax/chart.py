"""The benchmark's chart, drawn at build time from the numbers recorded on the GPU.

main() draws it as text; svg_chart() draws the same numbers as an SVG image.
"""

from pathlib import Path

from engine import recordings
from snippets.phase24.triton_softmax import benchmark
from snippets.phase24.triton_softmax.results import IMPLS, PASSES, Timing, parse_table

ROOT = Path(__file__).resolve().parents[3]
BAR_WIDTH = 40  # characters for 100% of the copy bandwidth
MARKS = dict(zip(IMPLS, "·▒░█", strict=True))


def recorded_table() -> tuple[float, list[Timing]] | None:
    """Copy bandwidth and timings of the benchmark's GPU recording (None while it is pending)."""
    recording = recordings.current(ROOT, Path(benchmark.__file__), "main")
    return None if recording is None else parse_table(recording.output)


def bar(share: float, mark: str) -> str:
    """A horizontal bar, BAR_WIDTH characters at 100%, longer past it."""
    return mark * round(share * BAR_WIDTH)


def text_chart(copy_gbps: float, timings: list[Timing]) -> str:
    """One bar per implementation and shape: share of the copy bandwidth, then the time."""
    lines = [f"share of the device-to-device copy bandwidth ({copy_gbps:.0f} GB/s); "
             f"{BAR_WIDTH} marks = 100%; " + ", ".join(f"{MARKS[i]} {i}" for i in IMPLS)]
    for pass_name in PASSES:
        lines += ["", pass_name]
        rows = [t for t in timings if t.pass_name == pass_name]
        for shape in dict.fromkeys(t.shape for t in rows):
            for t in (t for t in rows if t.shape == shape):
                label = shape if t.impl == IMPLS[0] else ""
                share = t.gbps / copy_gbps
                lines.append(f"{label:>13} {bar(share, MARKS[t.impl]):<{BAR_WIDTH + 2}} {share:4.0%} "
                             f"{t.microseconds:8.1f} µs")
    return "\n".join(lines)


SVG_COLORS = dict(zip(IMPLS, ("#bdbdbd", "#7e57c2", "#42a5f5", "#ef6c00"), strict=True))


def svg_chart(copy_gbps: float, timings: list[Timing], pass_name: str = "forward") -> str:
    """Grouped horizontal bars of one pass as a standalone SVG document (share of copy bandwidth)."""
    rows = [t for t in timings if t.pass_name == pass_name]
    shapes = list(dict.fromkeys(t.shape for t in rows))
    bar_h, gap, left, plot_w, top = 10, 12, 110, 420, 40
    group_h = len(IMPLS) * bar_h + gap
    height = top + len(shapes) * group_h + 30
    scale = plot_w / max(1.0, max(t.gbps / copy_gbps for t in rows))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {left + plot_w + 120} {height}" '
             f'font-family="sans-serif" font-size="11" role="img">',
             f'<title>softmax {pass_name}: share of the {copy_gbps:.0f} GB/s copy bandwidth</title>',
             f'<text x="{left}" y="16" font-weight="bold">{pass_name}: share of copy bandwidth '
             f'({copy_gbps:.0f} GB/s)</text>']
    for i, impl in enumerate(IMPLS):
        parts.append(f'<rect x="{left + i * 115}" y="22" width="10" height="10" fill="{SVG_COLORS[impl]}"/>'
                     f'<text x="{left + i * 115 + 14}" y="31">{impl}</text>')
    for g, shape in enumerate(shapes):
        y0 = top + g * group_h
        parts.append(f'<text x="{left - 6}" y="{y0 + 1.5 * bar_h + 4}" text-anchor="end">{shape}</text>')
        for i, impl in enumerate(IMPLS):
            t = next(t for t in rows if t.shape == shape and t.impl == impl)
            share, y = t.gbps / copy_gbps, y0 + i * bar_h
            parts.append(f'<rect x="{left}" y="{y}" width="{share * scale:.1f}" height="{bar_h - 1}" '
                         f'fill="{SVG_COLORS[impl]}"><title>{impl} {shape}: {t.microseconds:.1f} µs</title></rect>'
                         f'<text x="{left + share * scale + 4:.1f}" y="{y + bar_h - 2}" font-size="9">'
                         f'{share:.0%} · {t.microseconds:.1f} µs</text>')
    x100 = left + scale
    parts.append(f'<line x1="{x100:.1f}" y1="{top - 4}" x2="{x100:.1f}" y2="{height - 24}" stroke="#000" '
                 f'stroke-dasharray="3,3"/><text x="{x100:.1f}" y="{height - 10}" text-anchor="middle">100%</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def main():
    table = recorded_table()
    if table is None:
        print("The benchmark has not been recorded on a GPU yet: no numbers to draw.")
    else:
        print(text_chart(*table))
