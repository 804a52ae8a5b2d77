"""Stretch: the full grammar MiniGPT compiled on a GPU, and its fused attention softmax as a Triton kernel."""

from snippets.phase25.lab03.minigpt_compile import ROWS, SEQ_LEN, attention_softmax, compile_minigpt, kernel_launches
from snippets.phase25.lab03.triton_reading import annotate, pointers, summary

ISOLATE = True
DEVICES = ("cuda",)
TIMEOUT = 300


def main():
    result = compile_minigpt("cuda")
    print(f"grammar MiniGPT, ({ROWS}, {SEQ_LEN}) held-out token ids, on the GPU")
    print(f"max |eager - compiled|: logits {result['logits_diff']:.3e}, probabilities {result['probs_diff']:.3e}")
    print(f"torch.testing.assert_close(compiled, eager) on the logits: {result['assert_close']}")
    print("\nkernels, with their launches per forward:")
    for name, launches in kernel_launches(result["code"]):
        print(f"  x{launches}  {name}")
    name, source = attention_softmax(result["code"])
    text, found = annotate(source)
    print(f"\nthe attention softmax, {name}, pointers {', '.join(pointers(source))}:\n")
    print(text)
    print("\nsoftmax steps found by the rules:")
    print(summary(found))


def claim_attention_fused(main):
    """#stretch-minigpt: the attention kernel fuses the scale, the causal mask computed from positions, masked_fill
    and the softmax into one Triton kernel; no kernel is a bmm."""
    name = next(line.split()[1] for line in main.lines if line.strip().startswith("x2  triton_per_fused__softmax"))
    return (all(op in name for op in ("masked_fill", "mul", "tril", "softmax")) and "r0_2 + ((-1)*x0)" in main
            and "0.25" in main and not any("bmm" in line for line in main.lines if line.strip().startswith(("x1", "x2"))))


def claim_same_warning(main):
    """#part-d-gpu: the other GPU outputs on this page carry the same TensorFloat32 UserWarning at the top."""
    return "UserWarning: TensorFloat32" in main.lines[0]
