"""Part A on the grammar MiniGPT itself: compiled against eager, and the kernels it compiles to on CPU."""

from snippets.phase25.lab03.minigpt_compile import (ROWS, SEQ_LEN, attention_lines, attention_softmax,
                                                    compile_minigpt, describe_assert_close, kernel_launches)
from snippets.phase25.lab03.part_a_compile_match import TOLERANCE

ISOLATE = True
TIMEOUT = 300


def main():
    result = compile_minigpt()
    print(f"grammar MiniGPT, ({ROWS}, {SEQ_LEN}) held-out token ids, on CPU (256-bit vectors, one thread)")
    print(f"max |eager - compiled|, logits:        {result['logits_diff']:.3e}   "
          f"(largest |logit| {result['largest_logit']:.1f})")
    print(f"  float32 steps by {result['ulp_at_largest']:.2e} there: the logits differ by up to "
          f"{result['logits_diff'] / result['ulp_at_largest']:.1f} steps")
    print(f"max |eager - compiled|, probabilities: {result['probs_diff']:.3e}")
    for what in ("logits", "probs"):
        verdict = "met" if result[f"{what}_diff"] < TOLERANCE else "NOT met"
        print(f"  {what} < {TOLERANCE:g}: {verdict}")
    print(describe_assert_close(result["assert_close"]))
    print("\nkernels, with their launches per forward:")
    for name, launches in kernel_launches(result["code"]):
        print(f"  x{launches}  {name}")
    name, source = attention_softmax(result["code"])
    print(f"\nthe attention softmax, {name} ({len(source.splitlines())} lines of C++), its key lines:")
    for number, line, meaning in attention_lines(source):
        print(f"  {number:3}  {line}\n       // {meaning}")


def claim_logits_scale(main):
    """#part-a-minigpt: The logits reach about 14 in magnitude."""
    return 13 <= main.number("largest |logit|") <= 15


def claim_criterion(main):
    """#part-a-minigpt: the logits miss the 1e-6 criterion by about ten steps of float32; the probabilities, much
    smaller numbers, land close to it (within a factor of ten either way)."""
    return ("logits < 1e-06: NOT met" in main and 5 <= main.number("the logits differ by up to") <= 20
            and 1e-7 < main.number("probabilities:") < 1e-5)


def claim_assert_close_decided_by_its_worst_element(main):
    """#part-a-minigpt: the line under the verdict gives the element that comes closest to its own tolerance, and
    the share of it that element uses; the verdict is a pass exactly when that share is at most 100%."""
    share = main.number("worst element:")
    passes = main.line("assert_close(compiled, eager) on the logits:").endswith(": passes")
    return passes == (share <= 100)


def claim_worst_element_is_not_the_largest_logit(main):
    """#part-a-minigpt: That element is not the largest logit: where the logit is smaller, so is the allowance."""
    at = abs(float(main.line("worst element:").rpartition("|")[0].rpartition("|")[2]))
    return at < main.number("largest |logit|") / 2


def claim_handful_of_kernels(main):
    """#part-a-minigpt: A handful of kernels for the whole model; those launched twice run once per transformer
    block; no kernel is a matrix product (no mm in any name)."""
    kernels = [line.split()[1] for line in main.between("kernels, with their launches", "the attention softmax").lines
               if line.strip()]
    return 5 <= len(kernels) <= 12 and main.count("  x2  ") >= 3 and not any("mm" in name for name in kernels)


def claim_attention_kernel(main):
    """#part-a-minigpt: the attention kernel, cpp_fused__softmax_bitwise_not_masked_fill_mul_ones_tril_view_2,
    runs twice and compares key and query positions instead of reading a (64, 64) mask."""
    return ("  x2  cpp_fused__softmax_bitwise_not_masked_fill_mul_ones_tril_view_2" in main
            and "auto tmp0 = x2 + ((-1L)*x1);" in main and "tmp2 <= tmp4" in main)


def claim_six_steps(main):
    """#part-a-minigpt: the attention kernel fuses six steps: mul, ones, tril, bitwise_not, masked_fill and the
    softmax (its name's seventh op, view, is a reshape)."""
    name = "cpp_fused__softmax_bitwise_not_masked_fill_mul_ones_tril_view_2"
    ops = {"_softmax", "bitwise_not", "masked_fill", "mul", "ones", "tril"}
    return name in main and all(f"_{op}_" in name for op in ops) and len(ops) == 6
