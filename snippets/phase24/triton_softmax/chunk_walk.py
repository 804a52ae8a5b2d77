"""The backward kernel's walk over one row, drawn from a real run in Triton's interpreter: every load
and store the kernel issues, in order, with the columns it touches and the eviction policy it asks for."""

from contextlib import contextmanager

import torch
from triton.runtime import interpreter

from snippets import figure
from snippets.phase24.triton_softmax.kernels import backward_config, softmax, softmax_backward

ISOLATE = True  # patches the interpreter while it runs
TIMEOUT = 300
WIDTHS = (4096, 32000)
LEFT, BAR, STEP, ROW = 150, 300, 24, 22  # the labels' column, the row's drawn width, a step's height
WORDS = {
    "en": {"load": "load {names}", "store": "store {names}", "title": "The softmax backward's walk over one row",
           "width": "row of {n} columns: CHUNK {chunk}, KEEP_LAST {keep}",
           "step": "{what} columns {first}..{last} ({policy})", "first": "keep in L2", "last": "evict first",
           "normal": "no hint", "row": "{width}: {steps}"},
    "es": {"load": "carga {names}", "store": "escribe {names}", "title": "El recorrido del backward de softmax por una fila",
           "width": "fila de {n} columnas: CHUNK {chunk}, KEEP_LAST {keep}",
           "step": "{what} columnas {first}..{last} ({policy})", "first": "quedarse en L2", "last": "expulsar antes",
           "normal": "sin pista", "row": "{width}: {steps}"},
}
POLICY = {"evict_last": "first", "evict_first": "last"}  # the hint's key in WORDS: keep it, or let it go


@contextmanager
def memory_log(tensors: dict[str, torch.Tensor]):
    """Every masked load and store the interpreter runs meanwhile: (kind, tensor, first column, last column,
    eviction policy), the columns from the addresses the kernel computed; an access to another tensor
    (the output, made inside the call) gives its first and last address instead."""
    log, builder = [], interpreter.InterpreterBuilder
    load, store = builder.create_masked_load, builder.create_masked_store

    def where(ptrs, mask):
        """The tensor and columns the addresses fall in; (None, first, last address) outside them."""
        addresses = ptrs.data[mask.data.astype(bool)] if mask is not None else ptrs.data.ravel()
        for name, t in tensors.items():
            base = t.data_ptr()
            if base <= addresses.min() < base + t.numel() * t.element_size():
                return name, int(addresses.min() - base) // t.element_size(), int(addresses.max() - base) // t.element_size()
        return None, int(addresses.min()), int(addresses.max())

    def logged_load(self, ptrs, mask, other, cache_modifier, eviction_policy, is_volatile):
        log.append(("load", *where(ptrs, mask), str(eviction_policy).split(".")[-1].lower()))
        return load(self, ptrs, mask, other, cache_modifier, eviction_policy, is_volatile)

    def logged_store(self, ptrs, value, mask, cache_modifier, eviction_policy):
        log.append(("store", *where(ptrs, mask), str(eviction_policy).split(".")[-1].lower()))
        return store(self, ptrs, value, mask, cache_modifier, eviction_policy)

    builder.create_masked_load, builder.create_masked_store = logged_load, logged_store
    try:
        yield log
    finally:
        builder.create_masked_load, builder.create_masked_store = load, store


def walk(n_cols: int) -> dict:
    """One row's backward, run for real: its config and its accesses, y and dy read side by side merged."""
    torch.manual_seed(0)
    y = softmax(torch.randn(1, n_cols))
    dy = torch.randn(1, n_cols)
    with memory_log({"y": y, "dy": dy}) as log:
        dx = softmax_backward(y, dy)
    if any(name is None for kind, name, *_ in log if kind == "load"):
        raise AssertionError("a load outside y and dy")
    base = min(first for kind, _, first, _, _ in log if kind == "store")  # dx's column 0: its stores cover the row
    merged = []
    for kind, name, first, last, policy in log:
        if kind == "store":
            name, first, last = "dx", (first - base) // dx.element_size(), (last - base) // dx.element_size()
        if merged and merged[-1][:1] == (kind,) and merged[-1][2:] == (first, last, policy):
            merged[-1] = (kind, merged[-1][1] + ", " + name, first, last, policy)
        else:
            merged.append((kind, name, first, last, policy))
    expected = y * (dy - (y * dy).sum(-1, keepdim=True))
    if not torch.allclose(dx, expected, atol=1e-6):
        raise AssertionError("the logged run computed a wrong dx")
    return {"n": n_cols, "config": backward_config(n_cols), "steps": merged}


def step_words(step: tuple, lang: str) -> str:
    kind, names, first, last, policy = step
    words = WORDS[lang]
    return words["step"].format(what=words[kind].format(names=names), first=first, last=last,
                                policy=words[POLICY.get(policy, "normal")])


def describe(walks: list[dict], lang: str) -> str:
    words = WORDS[lang]
    return "; ".join(words["row"].format(width=words["width"].format(n=w["n"], chunk=w["config"]["CHUNK"],
                                                                     keep=w["config"]["KEEP_LAST"]),
                                         steps=", ".join(f"{i}. {step_words(s, lang)}" for i, s in enumerate(w["steps"], 1)))
                     for w in walks)


def draw(walks: list[dict], lang: str) -> tuple[str, str]:
    """A panel per row width: a line per access in the order the kernel made them, its columns as a bar."""
    words = WORDS[lang]
    body, y = [], 6
    colours = {"load": figure.BLUE, "store": figure.GREEN}
    for w in walks:
        scale = BAR / w["n"]
        body.append(figure.text(4, y + 14, words["width"].format(n=w["n"], chunk=w["config"]["CHUNK"],
                                                                keep=w["config"]["KEEP_LAST"]), bold=True))
        y += 22
        for i, step in enumerate(w["steps"], 1):
            kind, names, first, last, policy = step
            body += [figure.text(4, y + 15, f"{i}. {words[kind].format(names=names)}", size=11),
                     figure.text(4, y + 28, words[POLICY.get(policy, "normal")], size=11),
                     figure.rect(LEFT + first * scale, y + 4, (last - first + 1) * scale, ROW - 4, colours[kind],
                                 0.3 if policy == "evict_last" else 0.15, tip=step_words(step, lang))]
            y += STEP + 10
        body += [figure.text(LEFT, y + 8, "0", size=11), figure.text(LEFT + BAR, y + 8, str(w["n"]), size=11, anchor="end")]
        y += 20
    desc = describe(walks, lang)
    return figure.svg(LEFT + BAR + 8, y, body, words["title"], desc, "chunk-walk", lang, described=True), desc + "."


def main():
    walks = [walk(n) for n in WIDTHS]
    print(figure.in_languages("chunk-walk", lambda lang: draw(walks, lang)))


def claim_two_passes(main):
    """#backward-kernel: at 4096 columns the kernel reads the whole row twice (first asking L2 to keep it) and writes dx once; at 32000 columns it reads the first chunk, reads the kept last chunk once and writes its dx, then reads the first chunk again and writes its dx."""
    desc = main.desc
    narrow, wide = desc.split("; ")
    return (narrow.endswith("1. load y, dy columns 0..4095 (keep in L2), 2. load y, dy columns 0..4095 (evict first), "
                            "3. store dx columns 0..4095 (no hint)")
            and wide.endswith("1. load y, dy columns 0..16383 (keep in L2), 2. load y, dy columns 16384..31999 "
                              "(evict first), 3. store dx columns 16384..31999 (no hint), 4. load y, dy columns 0..16383 "
                              "(evict first), 5. store dx columns 0..16383 (no hint)"))
