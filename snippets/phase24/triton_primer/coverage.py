"""Which program wrote which element: a kernel that stores its own program id, and a picture of the result
in each language."""

from html import escape

import torch
import triton
import triton.language as tl

from snippets import figure
from snippets.phase24.triton_primer.vector_add import grid

WORDS = {
    "en": {"none": "elements no program wrote", "header": "program  elements    lanes used  lanes masked",
           "top": "x: {n} elements; grid = {grid}, BLOCK = {block}; hatched: masked lanes"},
    "es": {"none": "elementos que ningún programa escribió",
           "header": "programa  elementos   lanes usados  lanes enmascarados",
           "top": "x: {n} elementos; grid = {grid}, BLOCK = {block}; rayado: lanes enmascarados"},
}


@triton.jit
def owner_kernel(out_ptr, n, BLOCK: tl.constexpr):
    """Each program writes its id into the elements it owns: the same offsets and mask as add_kernel."""
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.full([BLOCK], pid, tl.int32), mask=offsets < n)


def owners(n: int, block: int) -> torch.Tensor:
    """For each of n elements, the id of the program that wrote it (-1: none did)."""
    out = torch.full((n,), -1, dtype=torch.int32)
    owner_kernel[grid(n, block)](out, n, BLOCK=block)
    return out


def spans(owner: torch.Tensor, block: int) -> list[tuple[int, int, int, int]]:
    """(program, first element, last element, masked lanes) for every program that wrote something."""
    rows = []
    for pid in owner.unique().tolist():
        where = (owner == pid).nonzero().flatten()
        rows.append((pid, where[0].item(), where[-1].item(), block - where.numel()))
    return rows


def table(n: int, block: int, lang: str = "en") -> str:
    """The spans as a text table: the diagram's text alternative."""
    owner, words = owners(n, block), WORDS[lang]
    lines = [f"n = {n}, BLOCK = {block}, grid = {grid(n, block)}, {words['none']}: {(owner == -1).sum().item()}",
             words["header"]]
    for pid, first, last, masked in spans(owner, block):
        lines.append(f"{pid:>7}  {f'{first}..{last}':<10}  {last - first + 1:>10}  {masked:>12}")
    return "\n".join(lines)


def svg(n: int, block: int, lang: str, width: int = 640) -> str:
    """The programs' blocks side by side over the tensor: used lanes filled, masked lanes hatched."""
    owner, hatch = owners(n, block), f"masked-lanes-{lang}"
    lanes = grid(n, block)[0] * block
    scale, top, bar = (width - 40) / lanes, 34, 44
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{top + bar + 40}" '
             f'viewBox="0 0 {width} {top + bar + 40}" font-family="monospace" font-size="12" '
             f'fill="currentColor" stroke="currentColor" role="img" lang="{lang}">',
             f"<title>{escape(table(n, block, lang))}</title>",
             f'<defs><pattern id="{hatch}" width="6" height="6" patternUnits="userSpaceOnUse" '
             'patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke-width="2"/></pattern></defs>',
             f'<text x="20" y="18" stroke="none">'
             f'{escape(WORDS[lang]["top"].format(n=n, grid=grid(n, block), block=block))}</text>']
    for pid, first, last, masked in spans(owner, block):
        x0, used = 20 + pid * block * scale, (last - first + 1) * scale
        parts.append(f'<rect x="{x0:.1f}" y="{top}" width="{used:.1f}" height="{bar}" '
                     f'fill="{"#1565c0" if pid % 2 else "#2e7d32"}" fill-opacity="0.25"/>')
        if masked:
            parts.append(f'<rect x="{x0 + used:.1f}" y="{top}" width="{masked * scale:.1f}" height="{bar}" '
                         f'fill="url(#{hatch})" stroke-opacity="0.5"/>')
        parts.append(f'<text x="{x0 + used / 2:.1f}" y="{top + bar / 2 + 4}" text-anchor="middle" '
                     f'stroke="none">pid {pid}</text>')
        parts.append(f'<text x="{x0 + 2:.1f}" y="{top + bar + 16}" stroke="none" font-size="10">{first}</text>')
    parts.append(f'<text x="{20 + n * scale:.1f}" y="{top + bar + 32}" text-anchor="middle" stroke="none" '
                 f'font-size="10">n = {n}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main():
    print(table(1000, 256))


def main_svg():
    print(figure.in_languages("coverage", lambda lang: (svg(1000, 256, lang), "")))


def claim_every_element_once(main):
    """#coverage: every element was written by exactly one program; the first three use all 256 lanes."""
    rows = main.lines[2:]
    return (main.number("elements no program wrote:", 0) == 0 and len(rows) == 4
            and all(row.split()[2:] == ["256", "0"] for row in rows[:3]))


def claim_last_program_masks_24(main):
    """#coverage: program 3 covers elements 768 to 999 and masks its last 24 lanes."""
    return main.lines[-1].split() == ["3", "768..999", "232", "24"]


def claim_diagram_hatches_one_block(main_svg):
    """#coverage: four blocks, and only program 3's block has masked (hatched) lanes."""
    english = main_svg.text.split("<!-- nmb-lang: es -->")[0]
    return english.count(">pid ") == 4 and english.count('fill="url(#masked-lanes-en)"') == 1
