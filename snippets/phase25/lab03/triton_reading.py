"""Read an Inductor Triton kernel line by line with rules: every line whose pattern is known gets a label.

A GPU kernel cannot be generated at build time (no GPU there), so its annotation cannot be a text written
against one exact kernel, as the CPU one is. Instead each label is attached to the lines that match its
rule, and the summary says which softmax steps were found: a new torch that writes the kernel differently
changes the labels and the summary in the recording, never a hand-written claim.
"""

import re

RULES = (
    (r"^import |^from |set_driver_to_gpu", None, "imports of Inductor's Triton runtime"),
    (r"@triton_heuristics\.persistent_reduction", None,
     "persistent reduction: each program keeps whole rows in registers, no loop along the row"),
    (r"@triton_heuristics\.reduction", None, "looped reduction: each row is walked in R0_BLOCK chunks"),
    (r"@triton_heuristics\.pointwise", None, "pointwise kernel: no reduction"),
    (r"size_hints=", None, "the sizes Inductor tuned the launch for (rounded up to powers of two)"),
    (r"@triton\.jit", None, "from here on, the kernel Triton compiles for the GPU"),
    (r"^def triton_", None, "pointers to the buffers, element counts, and XBLOCK: rows per program"),
    (r"^\s*xnumel = \d+", None, "number of rows, a constant: the kernel is specialised to this shape"),
    (r"^\s*r0_numel = \d+", None, "row length (the reduced dimension), a constant too"),
    (r"R0_BLOCK: tl.constexpr = \d+", None, "one block spans a whole row: the next power of two"),
    (r"program_id\(0\)", None, "the first row of this program: program id times XBLOCK"),
    (r"^\s*xindex = ", None, "the row indices of this program, a column vector [XBLOCK, 1]"),
    (r"^\s*xmask = ", None, "rows past the last one are masked off"),
    (r"^\s*r0_index = ", None, "the column indices, a row vector [1, R0_BLOCK]"),
    (r"^\s*r0_mask = ", None, "columns past the row length are masked off"),
    (r"tl\.load\(", "load", "LOAD from global memory; the index expression is the pointer offset"),
    (r"tl\.where\(.*-inf", None, "masked lanes set to -inf, so they never win the max"),
    (r"max2\(|tl\.max\(|triton_helpers\.max", "max", "REDUCTION: the row max (aten.amax), along axis 1"),
    (r"online_softmax", "max", "REDUCTION: max and rescaled sum in one pass (online softmax)"),
    (r"tl_math\.exp\(|tl\.exp\(|libdevice\.exp\(", "exp", "exp (aten.exp), in registers"),
    (r"tl\.sum\(", "sum", "REDUCTION: the row sum (aten.sum), along axis 1"),
    (r"^\s*tmp\d+ = tmp\d+ - tmp\d+$", "sub", "x - max (aten.sub)"),
    (r"^\s*tmp\d+ = \(?tmp\d+ / tmp\d+\)?$", "div", "divide by the row sum (aten.div)"),
    (r"tl\.store\(", "store", "STORE to global memory: the only write of the result"),
    (r"broadcast_to\(", None, "broadcast to the [XBLOCK, R0_BLOCK] tile (no data moves)"),
)
SOFTMAX_STEPS = ("load", "max", "sub", "exp", "sum", "div", "store")


def classify(line: str) -> tuple[str | None, str | None]:
    """(softmax step or None, label or None) of the first rule that matches the line."""
    for pattern, step, label in RULES:
        if re.search(pattern, line):
            return step, label
    return None, None


def annotate(kernel: str) -> tuple[str, dict[str, int]]:
    """The kernel with labels as `# <-` comments, and how many lines each softmax step matched."""
    out, found = [], dict.fromkeys(SOFTMAX_STEPS, 0)
    for line in kernel.splitlines():
        step, label = classify(line)
        if step:
            found[step] += 1
        out.append(f"{line}    # <- {label}" if label and len(line) < 160 else line)
        if label and len(line) >= 160:
            out.append(f"# ^ {label}")
    return "\n".join(out), found


def pointers(kernel: str) -> list[str]:
    """The pointer parameters of the kernel: in_ptr (read), out_ptr (written), in_out_ptr (both: in place)."""
    signature = re.search(r"^def triton_\w+\((.*)\):", kernel, re.MULTILINE)
    return [name for name in re.findall(r"(\w+)\s*[,)]", signature.group(1) + ")") if "ptr" in name] if signature else []


def summary(found: dict[str, int]) -> str:
    """One line per softmax step: found (how many lines) or not found."""
    return "\n".join(f"  {step:6} {'found, ' + str(n) + ' line(s)' if n else 'NOT found by the rules'}"
                     for step, n in found.items())
