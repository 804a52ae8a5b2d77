"""Part D: the fused softmax kernel read line by line, the annotation tied to the exact generated text.

Each note starts at the first kernel line (after the previous note's) containing its anchor and runs to
the next note, so every line of the kernel belongs to one note. KERNEL_SHA256 is the hash of the kernel
these notes were written against: when a torch upgrade changes a single character of the kernel, the
check fails (in the build and in the tests) instead of leaving a stale annotation on the page.
"""

import hashlib
import textwrap
from dataclasses import dataclass

from snippets.phase25.lab03.part_c_kernel import fused_softmax_kernel

ISOLATE = True
KERNEL_SHA256 = "fed05e6e295679a3df8658bb34d10f510d77f83d7143f099a92e06c67d9ada1f"


@dataclass(frozen=True)
class Note:
    anchor: str  # text found in the first line of the block this note explains
    text: str


NOTES = (
    Note("#include", "Inductor's C++ prelude: at::vec::Vectorized (SIMD vectors) and the reduction helpers "
         "used below. It is compiled once into a precompiled header: most of a cold first compile."),
    Note('extern "C"', "Plain C entry point: four raw float pointers and no sizes. call() passes "
         "buf0 (the addmm output, 2 x 600) as in_ptr0, buf1 (one max per row) as out_ptr0, buf3 (one sum "
         "per row) as out_ptr1 and buf4 (the probabilities, 2 x 600) as out_ptr2. The shapes are constants "
         "in the loops below: this kernel exists for (2, 600) only, which is what the guards on x's size "
         "protect."),
    Note("std::atomic<int>", "Boilerplate of every CPU kernel: a flag for integer division by zero, "
         "checked at the end. Nothing here divides integers."),
    Note("buf_local_buffer_data_0", "The only intermediate: a scratch row of 600 floats (2.4 KB, it stays in "
         "the L1 cache), reused for every row, that will hold exp(x - max). In Inductor's IR this was buf2, a "
         "(2, 600) tensor; fusing the loops shrank it to one row, which is why call() allocates no buf2. No "
         "(2, 600) tensor of x - max or exp(x - max) ever reaches memory."),
    Note("#pragma GCC ivdep", "The outer loop: x0 is the row, 0 and 1. ivdep tells GCC that iterations do not "
         "depend on each other. With more threads Inductor writes `#pragma omp parallel` and `omp for` here "
         "(this page pins one thread)."),
    Note("tmp_acc0 = -std::numeric_limits<float>::infinity()", "Reduction 1, aten.amax: a scalar accumulator "
         "and an 8-lane vector accumulator, both -inf. x1 walks the 600 columns 8 floats at a time: one "
         "256-bit AVX2 vector per step."),
    Note("if(C10_LIKELY(", "Bounds of the vectorized range, always true here: 600 = 75 x 8 leaves no tail. "
         "With 16-float AVX-512 vectors, 600 = 37 x 16 + 8 and Inductor adds a masked tail branch."),
    Note("loadu(in_ptr0 + static_cast<int64_t>(x1 + 600L*x0)", "Read 8 logits. The index expression "
         "x1 + 600*x0 is the row-major layout of (2, 600): strides (600, 1). loadu is an unaligned load."),
    Note("at::vec::maximum(tmp_acc0_vec, tmp0)", "aten.amax, lane by lane: 8 running maxima."),
    Note("max_propagate_nan", "The horizontal step of the reduction: 8 lanes folded into one float, "
         "propagating NaN as torch.amax does."),
    Note("out_ptr0[", "The row's max goes to buf1: 4 bytes per row, all that leaves reduction 1."),
    Note("float tmp_acc0 = 0;", "Reduction 2, aten.sum of exp: accumulators at 0, the same column loop and "
         "bounds check."),
    Note("loadu(in_ptr0 + static_cast<int64_t>(x1 + 600L*x0)", "The same 8 logits, read a second time: the "
         "max had to be complete before any exp."),
    Note("auto tmp1 = out_ptr0[", "The row's max, loaded and broadcast to 8 lanes."),
    Note("auto tmp3 = tmp0 - tmp2;", "aten.sub: x - max, the shift that keeps exp from overflowing."),
    Note("tmp3.exp()", "aten.exp, vectorized."),
    Note("tmp4.store(local_buffer_data_0", "exp(x - max) kept in the scratch row for the division: computed "
         "once, not twice."),
    Note("tmp_acc0_vec = tmp_acc0_vec + tmp4;", "aten.sum, lane by lane: 8 running sums."),
    Note("tmp_acc0 = tmp_acc0 + at::vec::vec_reduce_all", "Horizontal sum of the 8 lanes."),
    Note("out_ptr1[", "The row's sum goes to buf3."),
    Note("for(int64_t x1=", "The third loop over the row: no reduction, one pass that divides."),
    Note("loadu(local_buffer_data_0", "exp(x - max) read back from the scratch row (in cache), not "
         "recomputed from the logits."),
    Note("auto tmp1 = out_ptr1[", "The row's sum, loaded and broadcast."),
    Note("auto tmp3 = tmp0 / tmp2;", "aten.div: the probabilities."),
    Note("tmp3.store(out_ptr2", "8 probabilities written to buf4 at x1 + 600*x0: the only (2, 600) write."),
    Note("inductor_cpu_integer_div_error_flag = nullptr;", "Boilerplate: the division flag checked (never set "
         "here), and the kernel returns."),
)


class StaleAnnotation(AssertionError):
    """The generated kernel is not the text the notes were written against."""


def kernel_sha256(kernel: str) -> str:
    return hashlib.sha256(kernel.encode()).hexdigest()


def blocks(kernel: str, notes=NOTES, expected_sha256: str = KERNEL_SHA256) -> list[tuple[int, list[str], Note]]:
    """(first line number, lines, note) for every note; StaleAnnotation when the kernel changed."""
    if kernel_sha256(kernel) != expected_sha256:
        raise StaleAnnotation(
            f"the generated kernel changed (sha256 {kernel_sha256(kernel)}, annotated {expected_sha256}): "
            "read it again, then update its notes and their sha256")
    lines = kernel.splitlines()
    starts, search_from = [], 0
    for note in notes:
        found = next((i for i in range(search_from, len(lines)) if note.anchor in lines[i]), None)
        if found is None or (not starts and found != 0):
            raise StaleAnnotation(f"anchor {note.anchor!r} not found in order in the kernel")
        starts.append(found)
        search_from = found + 1
    ends = starts[1:] + [len(lines)]
    return [(start + 1, lines[start:end], note) for start, end, note in zip(starts, ends, notes)]


def listing(kernel: str, notes=NOTES, expected_sha256: str = KERNEL_SHA256) -> str:
    """The kernel with every block preceded by its note as a C++ comment, lines numbered."""
    out = []
    for number, (first, lines, note) in enumerate(blocks(kernel, notes, expected_sha256), 1):
        comment = textwrap.wrap(f"[{number}] {note.text}", 97)
        out.append("\n".join(f"// {line}" for line in comment))
        out.extend(f"{first + i:3}  {line}" for i, line in enumerate(lines))
        out.append("")
    return "\n".join(out).rstrip()


def markdown(kernel: str, name: str) -> str:
    """KERNEL_ANNOTATION.md: every block of the kernel as C++, then what it does."""
    parts = [f"# `{name}`, line by line\n",
             "Inductor's fused softmax kernel for TinyHead (`Linear(64, 600)` then softmax) on CPU, "
             "compiled with 256-bit vectors and one thread. The ATen ops fused into it: `aten.amax`, "
             "`aten.sub`, `aten.exp`, `aten.sum`, `aten.div`. Kernel sha256: "
             f"`{kernel_sha256(kernel)}`.\n"]
    for number, (first, lines, note) in enumerate(blocks(kernel), 1):
        last = first + len(lines) - 1
        where = f"line {first}" if first == last else f"lines {first}-{last}"
        parts.append(f"## {number}. {where}\n\n```cpp\n" + "\n".join(lines) + f"\n```\n\n{note.text}\n")
    return "\n".join(parts)


def main():
    name, kernel, _ = fused_softmax_kernel()
    print(f"{name}: {len(kernel.splitlines())} lines, sha256 {kernel_sha256(kernel)[:16]}..., "
          f"{len(NOTES)} notes (the annotated kernel's hash matches)\n")
    print(listing(kernel))


def claim_fused_op_blocks(main):
    """#part-d: aten.amax (blocks 6 to 11), aten.sub and aten.exp (15, 16), aten.sum (18, 19), aten.div (24)."""
    notes = {int(m.group(1)): m.group(2) for m in re.finditer(r"^// \[(\d+)\] (.*)$", main.text, re.MULTILINE)}
    return ("aten.amax" in notes[6] and "aten.amax" in notes[9] and "aten.sub" in notes[15]
            and "aten.exp" in notes[16] and "aten.sum" in notes[12] and "aten.sum" in notes[18]
            and "aten.div" in notes[24] and "the annotated kernel's hash matches" in main)


def claim_reads_and_writes(main):
    """#part-d: the input is read at in_ptr0 + (x1 + 600*x0), twice per row; the output written once at
    out_ptr2 + (x1 + 600*x0); the scratch row of 600 floats is block 4."""
    return (main.text.count("loadu(in_ptr0 + static_cast<int64_t>(x1 + 600L*x0)") == 2
            and main.text.count("store(out_ptr2 + static_cast<int64_t>(x1 + 600L*x0))") == 1
            and "make_unique<float []>(600L)" in main.between("// [4]", "// [5]"))


def claim_reductions(main):
    """#part-d: two reductions, each an 8-lane vector accumulator then vec_reduce_all, writing buf1 and buf3."""
    return (main.count("at::vec::vec_reduce_all<float, 1>") == 2 and main.count("tmp_acc0_vec = at::vec::Vectorized<float>(") == 2
            and "out_ptr0[static_cast<int64_t>(x0)]" in main and "out_ptr1[static_cast<int64_t>(x0)]" in main)
