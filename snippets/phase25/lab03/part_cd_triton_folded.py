"""Parts C and D on a GPU, the output recorded for part_cd_triton.py, folded to fit the page."""

from snippets.phase25.lab03 import part_cd_triton
from snippets.phase25.lab03.fold import fold, recorded_output

INPUTS = ("recordings/phase25.lab03.part_cd_triton.main.json",)


def main():
    output = recorded_output(part_cd_triton.__file__)
    print(fold(output) if output is not None else "Not recorded on a GPU yet.")


def claim_tf32_warning(main):
    """#part-d-gpu: If a GPU run of this page's code opens with a `UserWarning` about TensorFloat32, it is Inductor noting that float32 matrix products run without TensorFloat32 (any UserWarning here is that one, at the top)."""
    if "UserWarning" not in main:
        return True
    warning = " ".join(line.strip() for line in main.lines[:main.lines.index("  warnings.warn(")])
    return (warning.count("UserWarning") == main.text.count("UserWarning") == 1 and "torch/_inductor/" in warning
            and "UserWarning: TensorFloat32 tensor cores for float32 matrix multiplication available but not enabled" in warning)


def claim_in_place(main):
    """#part-d-gpu: The kernel reads its input through in_out_ptr0: it overwrites the addmm output in place, so
    not even buf4 exists."""
    return ("pointers in_out_ptr0:" in main and "buf3 = buf0; del buf0  # reuse" in main and "buf4" not in main
            and "return (buf3, )" in main)


def claim_whole_rows(main):
    """#part-d-gpu: each program holds whole rows (R0_BLOCK, the next power of two above 600, masked down to 600);
    the reductions are single calls along axis 1."""
    return ("R0_BLOCK: tl.constexpr = 1024" in main and "r0_mask = r0_index < r0_numel" in main
            and "triton_helpers.max2(tmp5, 1)" in main and "tl.sum(tmp11, 1)" in main)


def claim_exp_twice(main):
    """#part-d-gpu: the summary counts two lines computing exp: the kernel computes exp(x - max) twice."""
    return main.line("  exp ").strip() == "exp    found, 2 line(s)" and main.count("libdevice.exp(") == 2
