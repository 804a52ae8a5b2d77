"""The grammar MiniGPT on a GPU, the output recorded for stretch_minigpt_gpu.py, folded to fit the page."""

from snippets.phase25.lab03 import stretch_minigpt_gpu
from snippets.phase25.lab03.fold import fold, recorded_output

INPUTS = ("recordings/phase25.lab03.stretch_minigpt_gpu.main.json",)


def main():
    output = recorded_output(stretch_minigpt_gpu.__file__)
    print(fold(output) if output is not None else "Not recorded on a GPU yet.")


def claim_attention_fused(main):
    """#stretch-minigpt: the attention kernel fuses the scale, the causal mask computed from positions, masked_fill
    and the softmax into one Triton kernel; no kernel is a bmm."""
    name = next(line.split()[1] for line in main.lines if line.strip().startswith("x2  triton_per_fused__softmax"))
    return (all(op in name for op in ("masked_fill", "mul", "tril", "softmax")) and "r0_2 + ((-1)*x0)" in main
            and "0.25" in main and not any("bmm" in line for line in main.lines if line.strip().startswith(("x1", "x2"))))


def claim_same_warning(main):
    """#stretch-minigpt: a UserWarning in this GPU output, if any, is the same TensorFloat32 one, at the top."""
    return "UserWarning" not in main or ("UserWarning" in main.lines[0] and "TensorFloat32 tensor cores" in main.lines[1])
