"""Stretch: the full grammar MiniGPT compiled on a GPU, and its fused attention softmax as a Triton kernel."""

from snippets.phase25.lab03.minigpt_compile import (ROWS, SEQ_LEN, attention_softmax, compile_minigpt,
                                                    describe_assert_close, kernel_launches)
from snippets.phase25.lab03.triton_reading import annotate, pointers, summary

ISOLATE = True
DEVICES = ("cuda",)
TIMEOUT = 300


def main():
    result = compile_minigpt("cuda")
    print(f"grammar MiniGPT, ({ROWS}, {SEQ_LEN}) held-out token ids, on the GPU")
    print(f"max |eager - compiled|: logits {result['logits_diff']:.3e}, probabilities {result['probs_diff']:.3e}")
    print(describe_assert_close(result["assert_close"]))
    print("\nkernels, with their launches per forward:")
    for name, launches in kernel_launches(result["code"]):
        print(f"  x{launches}  {name}")
    name, source = attention_softmax(result["code"])
    text, found = annotate(source)
    print(f"\nthe attention softmax, {name}, pointers {', '.join(pointers(source))}:\n")
    print(text)
    print("\nsoftmax steps found by the rules:")
    print(summary(found))


def claim_assert_close_decided_by_its_worst_element(main):
    """#stretch-minigpt: the verdict of assert_close is a pass exactly when its worst element uses at most 100% of
    its tolerance, printed under it."""
    share = main.number("worst element:")
    return main.line("on the logits:").endswith(": passes") == (share <= 100)
