"""What each pattern sends in one training step, drawn from a measured run: calls by pass, kind, bytes, in
each language."""

from __future__ import annotations

from html import escape

from snippets import figure
from snippets.phase25.distributed import compare, torchrun
from snippets.phase25.distributed.comm import ring_bytes_sent
from snippets.phase25.distributed.report import PHASES

ISOLATE = True
TIMEOUT = 300  # past torchrun's own deadline, whose output says where each rank was
BATCH = 8  # sequences of 16 tokens, as in the comparison's first column
WORLD = 2
ROWS = (("DDP", 0), ("FSDP2", 0), ("TP", 0), ("PP GPipe", 0), ("PP GPipe", 1))
COLOURS = {"all_reduce": "#1565c0", "all_gather": "#2e7d32", "reduce_scatter": "#c62828",
           "send": "#6a1b9a", "recv": "#ef6c00"}
LABEL, TOTAL, LINE, TOP = 90, 170, 16, 40  # widths of the first and last columns, line height, header
CELLS = {"forward": 200, "backward": 220, "optimizer": 90}  # the passes' columns
WORDS = {
    "en": {"title": "What DDP, FSDP2, TP and PP (GPipe) send in one training step of the MiniGPT on {world} ranks, "
                    "batch {batch}", "passes": {}, "sent": "sent per step", "total": "sent {bytes} B",
           "nothing": "nothing", "rank": "rank {rank}", "thousands": ","},
    "es": {"title": "Lo que envían DDP, FSDP2, TP y PP (GPipe) en un paso de entrenamiento del MiniGPT en {world} "
                    "ranks, batch {batch}", "passes": {"optimizer": "optimizador"}, "sent": "enviado por paso",
           "total": "enviado: {bytes} B", "nothing": "nada", "rank": "rank {rank}", "thousands": "\u00a0"},
}


def measure(batch: int = BATCH) -> dict[tuple[str, int], list[list]]:
    """(pattern, rank) -> the calls that rank made in the measured step: [pass, kind, payload], from
    `torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.compare --batches BATCH`."""
    _, results = torchrun.measure(compare.__name__, "--batches", batch, deadline=240)
    return {(name, rank): results[rank][f"{name} @{batch}"]["calls"] for name, rank in ROWS}


def traffic(calls: list[list]) -> dict[str, dict[str, list[int]]]:
    """pass -> kind -> [calls, bytes this rank sends (ring algorithms)], kinds in order of first use."""
    table = {phase: {} for phase in PHASES}
    for phase, kind, payload in calls:
        entry = table[phase].setdefault(kind, [0, 0])
        entry[0] += 1
        entry[1] += ring_bytes_sent(kind, payload, WORLD)
    return table


def grouped(count: int, lang: str) -> str:
    """A byte count with its thousands grouped as the language groups them."""
    return f"{count:,}".replace(",", WORDS[lang]["thousands"])


def describe(name: str, rank: int, table: dict, lang: str) -> str:
    """One row of the diagram in words."""
    words = WORDS[lang]
    parts = [f"{words['passes'].get(phase, phase)}: " + (", ".join(
        f"{n} {kind} ({grouped(sent, lang)} B)" for kind, (n, sent) in kinds.items()) or words["nothing"])
             for phase, kinds in table.items()]
    total = sum(sent for kinds in table.values() for _, sent in kinds.values())
    return (f"{name} {words['rank'].format(rank=rank)}: " + "; ".join(parts)
            + "; " + words["total"].format(bytes=grouped(total, lang)))


def cell(calls: list[list], phase: str, x: float, y: float, lang: str) -> list[str]:
    """One pass of one row: a chip per call in the order they ran, then a line per kind."""
    mine = [kind for p, kind, _ in calls if p == phase]
    parts = [f'<rect x="{x + 12 * i}" y="{y}" width="9" height="14" fill="{COLOURS[kind]}"/>'
             for i, kind in enumerate(mine)]
    kinds = traffic(calls)[phase]
    for j, (kind, (n, sent)) in enumerate(kinds.items()):
        parts.append(f'<text x="{x}" y="{y + 28 + LINE * j}" font-size="11">{n} {kind} {grouped(sent, lang)} B</text>')
    if not kinds:
        parts.append(f'<text x="{x}" y="{y + 11}" font-size="11">{WORDS[lang]["nothing"]}</text>')
    return parts


def svg(measured: dict[tuple[str, int], list[list]], lang: str) -> str:
    """Rows of (pattern, rank), columns of passes, and a bar of the bytes each rank sends per step."""
    words = WORDS[lang]
    tables = {key: traffic(calls) for key, calls in measured.items()}
    totals = {key: sum(s for kinds in t.values() for _, s in kinds.values()) for key, t in tables.items()}
    heights = {key: max(1, *(len(kinds) for kinds in t.values())) * LINE + 32 for key, t in tables.items()}
    lefts = {phase: LABEL + sum(CELLS[p] for p in PHASES[:i]) for i, phase in enumerate(PHASES)}
    right = LABEL + sum(CELLS.values())
    width, largest = right + TOTAL, max(totals.values())
    height = TOP + sum(heights.values()) + 40
    body, y = [], TOP
    headers = [(lefts[phase], words["passes"].get(phase, phase)) for phase in PHASES] + [(right, words["sent"])]
    body += [f'<text x="{x}" y="24" font-weight="bold">{escape(text)}</text>' for x, text in headers]
    for (name, rank), calls in measured.items():
        body += [f'<line x1="0" y1="{y}" x2="{width}" y2="{y}" stroke="currentColor" stroke-opacity="0.3"/>',
                 f'<text x="8" y="{y + 20}">{escape(name)}</text>',
                 f'<text x="8" y="{y + 36}" font-size="11">{words["rank"].format(rank=rank)}</text>']
        for phase in PHASES:
            body += cell(calls, phase, lefts[phase], y + 8, lang)
        bar = (TOTAL - 20) * totals[(name, rank)] / largest
        body += [f'<rect x="{right}" y="{y + 8}" width="{bar:.1f}" height="14" '
                 'fill="currentColor" fill-opacity="0.35"/>',
                 f'<text x="{right}" y="{y + 36}" font-size="11">{grouped(totals[(name, rank)], lang)} B</text>']
        y += heights[(name, rank)]
    for i, (kind, colour) in enumerate(COLOURS.items()):
        x = 8 + 140 * i
        body += [f'<rect x="{x}" y="{y + 14}" width="9" height="14" fill="{colour}"/>',
                 f'<text x="{x + 14}" y="{y + 26}" font-size="11">{kind}</text>']
    desc = "; ".join(describe(name, rank, tables[(name, rank)], lang) for name, rank in measured)
    title = words["title"].format(world=WORLD, batch=BATCH)
    body = ['<g stroke="none">', *body, "</g>"]  # only the rules are stroked, as each says
    return figure.svg(width, height, body, title, desc, "traffic-diagram", lang, described=True)


def main():
    measured = measure()
    print(figure.in_languages("traffic-diagram", lambda lang: (svg(measured, lang), "")))


def claim_what_each_sends(main):
    """#traffic: DDP sends one all-reduce, in backward; FSDP2 three all-gathers in forward, then two all-gathers and three reduce-scatters in backward, the most bytes; tensor parallel two all-reduces in forward and two in backward, each one batch of activations; stage 0 sends four micro-batches forward and receives four back, stage 1 the reverse, the fewest bytes; nothing in the optimizer step."""
    desc = main.desc
    rows = dict(row.split(": ", 1) for row in re.split(r"; (?=[A-Z][\w ]* rank \d: )", desc))
    sent = {name: int(row.rsplit("sent ", 1)[1].split()[0].replace(",", "")) for name, row in rows.items()}
    activations = 8 * 16 * 64 * 4
    return (rows["DDP rank 0"].startswith("forward: nothing; backward: 1 all_reduce (")
            and rows["FSDP2 rank 0"].startswith("forward: 3 all_gather (")
            and "backward: 2 all_gather (" in rows["FSDP2 rank 0"] and ", 3 reduce_scatter (" in rows["FSDP2 rank 0"]
            and rows["TP rank 0"].startswith(f"forward: 2 all_reduce ({2 * activations:,} B); "
                                             f"backward: 2 all_reduce ({2 * activations:,} B)")
            and rows["PP GPipe rank 0"].startswith("forward: 4 send (") and "backward: 4 recv (0 B)" in rows["PP GPipe rank 0"]
            and rows["PP GPipe rank 1"].startswith("forward: 4 recv (0 B); backward: 4 send (")
            and all("optimizer: nothing" in row for row in rows.values())
            and max(sent, key=sent.get) == "FSDP2 rank 0" and min(sent.values()) == sent["PP GPipe rank 0"] == sent["PP GPipe rank 1"])
