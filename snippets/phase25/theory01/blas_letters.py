"""Why BLAS gets `T,N`: each operand's row-major bytes, re-read column-major as BLAS reads them, drawn
from a real SGEMM call that MKL logs for a small linear(x, W, b) with the LM head's layout."""

import torch
import torch.nn.functional as F

from snippets import figure
from snippets.phase25.theory01.cpu_gemm import MKL_CALL
from snippets.phase25.theory01.native_stdout import capture_fd1

ISOLATE = True
TIMEOUT = 300
CELL_W, CELL_H, GAP = 38, 22, 96  # a matrix cell, the space between the stored and the re-read matrix
WORDS = {
    "en": {"stored": "{name} as stored, row-major {shape}", "read": "as BLAS reads it: {rows} × {cols}, ld {ld}",
           "title": "{call}: the bytes of W, x and y, re-read column-major",
           "A": "A = W's bytes read column-major: W transposed; BLAS needs W, so the letter is {letter}",
           "B": "B = x's bytes read column-major: x transposed, what y.T = W @ x.T needs: letter {letter}",
           "C": "C = the output read column-major: y transposed, so y comes out row-major",
           "desc": "MKL logs {call} for linear(x, W, b), x {x}, W {W}; {A}; {B}; {C}"},
    "es": {"stored": "{name} como está guardada, por filas {shape}",
           "read": "como la lee BLAS: {rows} × {cols}, ld {ld}",
           "title": "{call}: los bytes de W, x e y, leídos por columnas",
           "A": "A = los bytes de W leídos por columnas: W traspuesta; BLAS necesita W, así que la letra es {letter}",
           "B": "B = los bytes de x leídos por columnas: x traspuesta, lo que pide y.T = W @ x.T: letra {letter}",
           "C": "C = la salida leída por columnas: y traspuesta, así que y sale por filas",
           "desc": "MKL registra {call} para linear(x, W, b), x {x}, W {W}; {A}; {B}; {C}"},
}


def names(t: torch.Tensor, letter: str) -> dict[float, str]:
    """Each element's value -> its name as an element of the row-major matrix, `w[1,2]`."""
    return {t[i, j].item(): f"{letter}{i}{j}" for i in range(t.shape[0]) for j in range(t.shape[1])}


def column_major(t: torch.Tensor, rows: int, cols: int, ld: int) -> list[list[float]]:
    """The tensor's storage read as BLAS reads a column-major rows × cols matrix with leading dimension ld."""
    flat = torch.empty(0, dtype=t.dtype).set_(t.untyped_storage())
    return flat.as_strided((rows, cols), (1, ld), t.storage_offset()).tolist()


def sgemm() -> dict:
    """linear(x, W, b) on x (2, 3) and W (4, 3): MKL's logged call, and each operand as stored and as read."""
    x, W = torch.arange(6.0).view(2, 3), torch.arange(12.0).view(4, 3) + 10
    b = torch.zeros(4)
    with torch.backends.mkl.verbose(torch.backends.mkl.VERBOSE_ON):
        log = capture_fd1(F.linear, x, W, b)
    call = next(MKL_CALL.finditer(log))
    args = call["args"].split(",")
    trans_a, trans_b, m, n, k = args[0], args[1], *map(int, args[2:5])
    lda, ldb, ldc = int(args[7]), int(args[9]), int(args[12])
    pointers = {"A": int(args[6], 16), "B": int(args[8], 16)}
    if (pointers["A"], pointers["B"]) != (W.data_ptr(), x.data_ptr()):
        raise AssertionError("MKL's A and B are not W's and x's bytes")
    y = F.linear(x, W, b)
    as_read = {"A": (k, m, lda), "B": (k, n, ldb), "C": (m, n, ldc)}  # the matrices as stored for BLAS
    operands = {"A": (W, "w"), "B": (x, "x"), "C": (y, "y")}
    drawn = {}
    for key, (t, letter) in operands.items():
        rows, cols, ld = as_read[key]
        label = names(t, letter)
        drawn[key] = {"name": letter.upper() if letter == "w" else letter, "shape": tuple(t.shape),
                      "stored": [[label[v] for v in row] for row in t.tolist()],
                      "read": [[label[v] for v in row] for row in column_major(t, rows, cols, ld)], "ld": ld}
    call_text = f"SGEMM({trans_a},{trans_b},{m},{n},{k},...)"
    return {"call": call_text, "letters": {"A": trans_a, "B": trans_b}, "operands": drawn,
            "x": tuple(x.shape), "W": tuple(W.shape)}


def grid(cells: list[list[str]], x: float, y: float) -> list[str]:
    """The named elements as a matrix, each shaded by the column it has as stored, so a stored column can be
    followed into the matrix as read."""
    parts = []
    for i, row in enumerate(cells):
        for j, name in enumerate(row):
            parts += [figure.rect(x + CELL_W * j, y + CELL_H * i, CELL_W, CELL_H, opacity=(0.05, 0.2, 0.35, 0.5)[int(name[-1]) % 4]),
                      figure.text(x + CELL_W * (j + 0.5), y + CELL_H * i + 15, name, size=11, anchor="middle")]
    return parts


def draw(data: dict, lang: str) -> tuple[str, str]:
    words = WORDS[lang]
    body, y, width = [], 8, 0
    for key, operand in data["operands"].items():
        stored, read = operand["stored"], operand["read"]
        left = 8
        right = left + CELL_W * len(stored[0]) + GAP
        caption = words[key].format(letter=data["letters"].get(key, ""))
        body += [figure.text(left, y + 13, caption, size=11, bold=True),
                 figure.text(left, y + 31, words["stored"].format(name=operand["name"], shape=operand["shape"]),
                             size=11),
                 figure.text(right, y + 47, words["read"].format(rows=len(read), cols=len(read[0]), ld=operand["ld"]),
                             size=11)]
        body += grid(stored, left, y + 38)
        body += grid(read, right, y + 54)
        middle = y + 54 + CELL_H * min(len(stored), len(read)) / 2
        body.append(figure.arrow(left + CELL_W * len(stored[0]) + 8, middle, right - 8, middle, "blas-letters", lang))
        width = max(width, right + CELL_W * len(read[0]) + 8, left + len(caption) * 6.6 + 8)
        y += 54 + CELL_H * max(len(stored), len(read) + 1)
    desc = words["desc"].format(call=data["call"], x=data["x"], W=data["W"],
                                **{key: words[key].format(letter=data["letters"].get(key, "")) for key in "ABC"})
    title = words["title"].format(call=data["call"])
    return figure.svg(width, y, body, title, desc, "blas-letters", lang, described=True), desc + "."


def main():
    data = sgemm()
    print(figure.in_languages("blas-letters", lambda lang: draw(data, lang)))


def claim_letters(main):
    """#gemm-cpu: MKL logs SGEMM(T,N,4,2,3,...) for the small linear; W's bytes read column-major are W transposed (w00 w10 w20 w30 on the first row), x's are x transposed (x00 x10)."""
    desc = main.desc
    read_w = [line.split(">")[1].split("<")[0] for line in main.lines if 'font-size="11" text-anchor="middle"' in line]
    return (desc.startswith("MKL logs SGEMM(T,N,4,2,3,...)") and "so the letter is T" in desc and "letter N" in desc
            and read_w[12:16] == ["w00", "w10", "w20", "w30"])
