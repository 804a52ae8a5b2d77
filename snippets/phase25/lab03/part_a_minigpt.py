"""Part A on the grammar MiniGPT itself: compiled against eager, and the kernels it compiles to on CPU."""

from snippets.phase25.lab03.minigpt_compile import (ROWS, SEQ_LEN, attention_lines, attention_softmax,
                                                    compile_minigpt, kernel_launches)
from snippets.phase25.lab03.part_a_compile_match import TOLERANCE

ISOLATE = True
TIMEOUT = 300


def main():
    result = compile_minigpt()
    print(f"grammar MiniGPT, ({ROWS}, {SEQ_LEN}) held-out token ids, on CPU (256-bit vectors, one thread)")
    print(f"max |eager - compiled|, logits:        {result['logits_diff']:.3e}   "
          f"(largest |logit| {result['largest_logit']:.1f})")
    print(f"max |eager - compiled|, probabilities: {result['probs_diff']:.3e}")
    for what in ("logits", "probs"):
        verdict = "met" if result[f"{what}_diff"] < TOLERANCE else "NOT met"
        print(f"  {what} < {TOLERANCE:g}: {verdict}")
    print(f"torch.testing.assert_close(compiled, eager) on the logits: {result['assert_close']}")
    print("\nkernels, with their launches per forward:")
    for name, launches in kernel_launches(result["code"]):
        print(f"  x{launches}  {name}")
    name, source = attention_softmax(result["code"])
    print(f"\nthe attention softmax, {name} ({len(source.splitlines())} lines of C++), its key lines:")
    for number, line, meaning in attention_lines(source):
        print(f"  {number:3}  {line}\n       // {meaning}")
