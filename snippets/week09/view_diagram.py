"""Two real views of one storage, drawn as an SVG: which storage cells each element of the view reads."""

from html import escape
from itertools import product

import torch

from snippets import figure

CELL, GAP = 40, 24  # width of a storage cell and the margin, in pixels


def views() -> dict[str, torch.Tensor]:
    """x = arange(12).view(3, 4) and two views of it: one that skips cells, one that reorders them."""
    x = torch.arange(12).view(3, 4)
    return {"x[1:, ::2]": x[1:, ::2], "x.t()": x.t()}


def storage_values(t: torch.Tensor) -> list[int]:
    """Every element of the tensor's storage, in storage order, read through a 1-D tensor over it."""
    return torch.empty(0, dtype=t.dtype).set_(t.untyped_storage()).tolist()


def cells_reached(t: torch.Tensor) -> dict[tuple[int, ...], int]:
    """Index of each element of the view -> the storage cell it lives in, from its real address."""
    base, size = t.untyped_storage().data_ptr(), t.element_size()
    return {index: (t[index].data_ptr() - base) // size for index in product(*map(range, t.shape))}


WORDS = {
    "en": {"meta": "shape {shape}, stride {stride}, storage_offset {offset}, contiguous {contiguous}",
           "summary": "{name}: {meta}; reaches storage cells {cells} of {total}",
           "offset": "offset {n}", "dim": "dim {d}: +{stride}", "title": "Storage cells read by {names}",
           "storage": "the storage is one row of {total} cells holding {first} to {last}; "},
    "es": {"meta": "forma {shape}, strides {stride}, storage_offset {offset}, contigua {contiguous}",
           "summary": "{name}: {meta}; llega a las celdas {cells} de las {total} del almacenamiento",
           "offset": "offset {n}", "dim": "dimensión {d}: +{stride}", "title": "Celdas del almacenamiento que leen {names}",
           "storage": "el almacenamiento es una fila de {total} celdas con los valores del {first} al {last}; "},
}


def metadata(t: torch.Tensor, lang: str = "en") -> str:
    """The view's shape, strides, offset and contiguity, in words of `lang`."""
    contiguous = {"en": str(t.is_contiguous()), "es": "sí" if t.is_contiguous() else "no"}[lang]
    return WORDS[lang]["meta"].format(shape=tuple(t.shape), stride=t.stride(), offset=t.storage_offset(),
                                      contiguous=contiguous)


def summary(name: str, t: torch.Tensor, lang: str = "en") -> str:
    """One line: the view's metadata and the cells it reaches, in the view's own order."""
    reached = list(cells_reached(t).values())
    return WORDS[lang]["summary"].format(name=name, meta=metadata(t, lang), cells=", ".join(map(str, reached)),
                                         total=len(storage_values(t)))


def arc(x1: float, x2: float, y: float, lift: float, text: str, lang: str) -> list[str]:
    """An arrow curving from x1 to x2 at height y (up for a positive lift, down for a negative one), labelled."""
    apex = y - 0.75 * lift
    return [f'<path d="M{x1:.0f},{y:.0f} C{x1:.0f},{y - lift:.0f} {x2:.0f},{y - lift:.0f} {x2:.0f},{y:.0f}" '
            f'fill="none" marker-end="url(#{figure.marker("view-diagram", lang)})"/>',
            f'<text x="{(x1 + x2) / 2:.0f}" y="{apex - 4 if lift > 0 else apex + 14:.0f}" text-anchor="middle" '
            f'font-size="11" stroke="none">{escape(text)}</text>']


def panel(name: str, t: torch.Tensor, top: float, lang: str) -> tuple[list[str], float]:
    """SVG elements for one view: a header, the storage row with the reached cells filled and labelled with
    their index in the view, the offset, and an arrow per dimension from the first element to the next one
    along it (dim 0 above the row, dim 1 below)."""
    values, reached = storage_values(t), cells_reached(t)
    label_of = {cell: "[" + ",".join(map(str, index)) + "]" for index, cell in reached.items()}
    meta = metadata(t, lang)
    parts = [f'<text x="{GAP}" y="{top + 14}" font-weight="bold" stroke="none">{escape(name)}</text>',
             f'<text x="{GAP}" y="{top + 32}" font-size="12" stroke="none">{escape(meta)}</text>']
    row_y, first = top + 96, t.storage_offset()
    centre = [GAP + CELL * (k + 0.5) for k in range(len(values))]
    if first:
        left, right = GAP, GAP + CELL * first
        parts += [f'<path d="M{left},{row_y - 4} V{row_y - 10} H{right} V{row_y - 4}" fill="none"/>',
                  f'<text x="{(left + right) / 2:.0f}" y="{row_y - 14}" text-anchor="middle" font-size="11" '
                  f'stroke="none">{WORDS[lang]["offset"].format(n=first)}</text>']
    for dim, stride in enumerate(t.stride()):
        if t.shape[dim] > 1:
            y, lift = (row_y, 44) if dim == 0 else (row_y + 50, -36)
            parts += arc(centre[first], centre[first + stride], y, lift, WORDS[lang]["dim"].format(d=dim, stride=stride), lang)
    for k, value in enumerate(values):
        opacity = "0.35" if k in label_of else "0.05"  # reached cells filled, the others faint
        parts += [f'<rect x="{GAP + CELL * k}" y="{row_y}" width="{CELL}" height="30" fill="#1565c0" '
                  f'fill-opacity="{opacity}"/>',
                  f'<text x="{centre[k]:.0f}" y="{row_y + 20}" text-anchor="middle" stroke="none">{value}</text>',
                  f'<text x="{centre[k]:.0f}" y="{row_y + 44}" text-anchor="middle" font-size="11" '
                  f'stroke="none">{label_of.get(k, "")}</text>']
    return parts, row_y + 100


def svg(named: dict[str, torch.Tensor], lang: str = "en") -> str:
    """The views one below the other, each over the storage it shares; <title> and <desc> name what is drawn."""
    cells = max(len(storage_values(t)) for t in named.values())
    body, top = [], GAP / 2
    for name, t in named.items():
        parts, top = panel(name, t, top, lang)
        body += parts
    title = WORDS[lang]["title"].format(names=" / ".join(named))
    desc = "; ".join(summary(name, t, lang) for name, t in named.items())
    return figure.svg(2 * GAP + CELL * cells, top + GAP / 2, body, title, desc, "view-diagram", lang, described=True)


def words(named: dict[str, torch.Tensor], lang: str) -> str:
    """The figure in words: the storage, then what each view reaches."""
    values = storage_values(next(iter(named.values())))
    storage = WORDS[lang]["storage"].format(total=len(values), first=values[0], last=values[-1])
    return escape(storage[0].upper() + storage[1:] + "; ".join(summary(f"`{name}`", t, lang)
                                                          for name, t in named.items()) + ".", quote=False)


def main():
    named = views()
    print(figure.in_languages("view-diagram", lambda lang: (svg(named, lang), words(named, lang))))


def claim_slice_reaches(main):
    """#view-diagram: x[1:, ::2] starts at storage cell 4 and reaches cells 4, 6, 8 and 10, and no others:
    one step in dim 0 is 4 cells, one step in dim 1 is 2 cells."""
    return ("x[1:, ::2]: shape (2, 2), stride (4, 2), storage_offset 4, contiguous False; "
            "reaches storage cells 4, 6, 8, 10 of 12" in main)


def claim_transpose_reorders(main):
    """#view-diagram: x.t() reaches all 12 cells from offset 0 in another order: stride (1, 4), so its [0,1] is
    cell 4 and its [1,0] is cell 1, and it is not contiguous."""
    return ("x.t(): shape (4, 3), stride (1, 4), storage_offset 0, contiguous False; "
            "reaches storage cells 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11 of 12" in main)
