"""Part D on the grammar MiniGPT: its attention kernel read line by line, the notes tied to the exact
generated text by its sha256, as Part D's notes on TinyHead are."""

import re

from snippets.phase25.lab03.minigpt_compile import attention_softmax, compile_minigpt
from snippets.phase25.lab03.part_c_kernel import kernel_arguments
from snippets.phase25.lab03.part_d_annotation import Note, kernel_sha256, listing
from snippets.phase25.theory03.inductor_code import call_function

ISOLATE = True
TIMEOUT = 300
KERNEL_SHA256 = "336b80a3bb65a070835ef4eed2c6539206f135eba8b9e9750d27dd7d7885f455"
BUFFER = re.compile(r"\bbuf\d+\b")

NOTES = (
    Note("#include", "Inductor's C++ prelude, as in TinyHead's kernel."),
    Note('extern "C"', "Three float pointers. in_out_ptr0 is the (4, 4, 64, 64) score matrix the first bmm "
         "wrote (batch, head, query, key): the kernel overwrites it with the attention weights. out_ptr0 "
         "receives one max per (batch, head, query) row, out_ptr1 one sum per row: 1024 floats each."),
    Note("std::atomic<int>", "Boilerplate: the integer-division flag of every CPU kernel."),
    Note("auto in_ptr0 = in_out_ptr0;", "The same buffer under a second name: read as an input by the first "
         "loop nest, overwritten by the store at its end."),
    Note("#pragma GCC ivdep", "x0 walks the 16 (batch, head) pairs, 4 x 4: one 64 x 64 score matrix each, "
         "4096 floats apart."),
    Note("#pragma GCC ivdep", "x1 walks the 64 queries: one row of scores each, 64 floats apart."),
    Note("float tmp_acc0 = -std::numeric_limits<float>::infinity();", "Reduction 1, aten.amax: scalar and "
         "8-lane accumulators at -inf; x2 walks the 64 keys 8 at a time, and 64 = 8 x 8 leaves no tail."),
    Note("loadu(in_ptr0", "Read 8 scores of the row: key x2 to x2 + 7, at x2 + 64*x1 + 4096*x0."),
    Note("auto tmp0 = x2 + ((-1L)*x1);", "The causal mask begins: key minus query for the first lane, then "
         "arange makes it 8 lanes, one per key. The mask comes from the loop indices: "
         "torch.ones(T, T).tril() is never allocated."),
    Note("auto tmp3 = static_cast<int64_t>(0);", "key - query <= 0, that is key <= query: tril, kept as a "
         "vector mask."),
    Note("auto tmp6 = static_cast<bool>(true);", "The torch.ones(T, T) tensor, every element true, folded to "
         "one constant and ANDed with tril: tril(ones) without a tensor."),
    Note("auto tmp11 = ~tmp10;", "aten.bitwise_not: ~causal, the future keys to hide."),
    Note("static_cast<float>(0.25)", "aten.mul: the scale D**-0.5 with D = 64 / 4 heads = 16, a constant."),
    Note("auto tmp16 = -std::numeric_limits<float>::infinity();", "aten.masked_fill: blendv takes -inf "
         "where ~causal is set and the scaled score elsewhere."),
    Note("tmp_acc0_vec = at::vec::maximum", "aten.amax, lane by lane: -inf never wins unless the whole row "
         "is masked, and the diagonal (key = query) never is."),
    Note("max_propagate_nan", "The 8 lanes folded into the row's max."),
    Note("out_ptr0[", "The row's max goes to out_ptr0: 4 bytes per row."),
    Note("for(int64_t x2=", "A second pass over the same 64 keys of the row."),
    Note("loadu(in_out_ptr0", "The same 8 scores, read again, now through in_out_ptr0."),
    Note("auto tmp19 = out_ptr0[", "The row's max, just written."),
    Note("auto tmp0 = x2 + ((-1L)*x1);", "Mask, scale and masked_fill again, line for line as above: "
         "recomputing them costs a few vector instructions, storing the masked scores would cost a pass "
         "over memory."),
    Note("auto tmp20 = at::vec::Vectorized<float>(tmp19);", "aten.sub: x - max, broadcast to 8 lanes."),
    Note("tmp21.exp()", "aten.exp: a masked lane gives exp(-inf) = 0, so a future key gets weight 0."),
    Note("tmp22.store(in_out_ptr0", "exp(x - max) written over the scores, in place: no new buffer. The "
         "first loop nest ends here."),
    Note("#pragma GCC ivdep", "The second loop nest, in the same function: x0 walks all 1024 rows "
         "(16 x 64) as one flat index, 64 floats apart. The sum and the division need no query or key "
         "position, so (batch, head, query) collapse into one loop."),
    Note("float tmp_acc0 = 0;", "Reduction 2, aten.sum: accumulators at 0, the 64 columns 8 at a time."),
    Note("loadu(in_out_ptr0", "Read 8 values of exp(x - max) from the buffer the first loop nest wrote."),
    Note("tmp_acc0_vec = tmp_acc0_vec + tmp0;", "aten.sum, lane by lane."),
    Note("tmp_acc0 = tmp_acc0 + at::vec::vec_reduce_all", "The 8 lanes folded into the row's sum."),
    Note("out_ptr1[", "The row's sum goes to out_ptr1."),
    Note("for(int64_t x1=", "The last pass over the row: no reduction, one division per element."),
    Note("loadu(in_out_ptr0", "exp(x - max), read back."),
    Note("auto tmp1 = out_ptr1[", "The row's sum, broadcast to 8 lanes."),
    Note("auto tmp3 = tmp0 / tmp2;", "aten.div: the attention weights."),
    Note("tmp3.store(in_out_ptr0", "Written in place once more: the buffer now holds the weights that the "
         "second bmm (weights @ v) reads."),
    Note("inductor_cpu_integer_div_error_flag = nullptr;", "Boilerplate: the flag checked, and the kernel "
         "returns."),
)


def attention_kernel() -> tuple[str, str, str]:
    """(name, C++ source, whole generated module) of the grammar MiniGPT's attention kernel on CPU."""
    code = compile_minigpt()["code"]
    name, source = attention_softmax(code)
    return name, source, code


def feeding_lines(name: str, code: str) -> list[str]:
    """The lines of call() before the kernel's first launch that make the buffers it is passed, traced
    back through reuses (not into an extern call's inputs, which are elided)."""
    lines = [line.strip() for line in call_function(code).splitlines()]
    launch = next(i for i, line in enumerate(lines) if line.startswith(f"{name}("))
    wanted, found = set(BUFFER.findall(lines[launch])), []
    for line in reversed(lines[:launch]):
        target = re.match(r"(buf\d+) = |extern_kernels\.\w+\(.*out=(buf\d+)\)", line)
        if target and target[1] in wanted:
            wanted |= set(BUFFER.findall(line.split("#")[0]))
            found.append(line)
        elif target and target[2] in wanted:
            found.append(re.sub(r"\(.*, out=", "(..., out=", line))
    return found[::-1] + [lines[launch]]


def main():
    name, kernel, code = attention_kernel()
    print(f"{name}\n{len(kernel.splitlines())} lines, sha256 {kernel_sha256(kernel)[:16]}..., {len(NOTES)} notes "
          "(the annotated kernel's hash matches)\n")
    print("how call() feeds its first launch:")
    for line in feeding_lines(name, code):
        print("   ", line)
    print("buffer -> kernel pointer:", ", ".join(f"{b} -> {p}" for b, p in kernel_arguments(name, kernel, code)))
    print()
    print(listing(kernel, NOTES, KERNEL_SHA256))


def claim_block_numbers(main):
    """#part-d-minigpt: mul (block 13), ones, tril and bitwise_not (9 to 12), masked_fill (14), amax (7, 15 to
    17), sub and exp (22, 23), sum (26 to 29), div (34); the mask computed again in block 21."""
    notes = {int(m.group(1)): m.group(2) for m in re.finditer(r"^// \[(\d+)\] (.*)$", main.text, re.MULTILINE)}
    return ("aten.mul" in notes[13] and "arange" in notes[9] and "tril" in notes[10] and "ones" in notes[11]
            and "aten.bitwise_not" in notes[12] and "aten.masked_fill" in notes[14] and "aten.amax" in notes[7]
            and "aten.amax" in notes[15] and "aten.sub" in notes[22] and "aten.exp" in notes[23]
            and "aten.sum" in notes[26] and "aten.sum" in notes[28] and "aten.div" in notes[34]
            and "again" in notes[21] and "the annotated kernel's hash matches" in main)


def claim_one_buffer_in_place(main):
    """#part-d-minigpt: one buffer, in_out_ptr0, the first bmm's (16, 64, 64) scores viewed as (4, 4, 64, 64),
    read at x2 + 64*x1 + 4096*x0 and overwritten in place; the other writes are 1024 maxima and 1024 sums."""
    return ("extern_kernels.bmm(..., out=buf7)" in main and "buf7 = empty_strided_cpu((16, 64, 64)" in main
            and "buf9 = reinterpret_tensor(buf7, (4, 4, 64, 64)" in main and "buf11 = buf9" in main
            and "buf11 -> in_out_ptr0" in main and main.text.count("empty_strided_cpu((4, 4, 64, 1)") == 2
            and "loadu(in_ptr0 + static_cast<int64_t>(x2 + 64L*x1 + 4096L*x0)" in main
            and "tmp22.store(in_out_ptr0 + static_cast<int64_t>(x2 + 64L*x1 + 4096L*x0))" in main
            and "tmp3.store(in_out_ptr0 + static_cast<int64_t>(x1 + 64L*x0))" in main)


def claim_mask_and_loop_nests(main):
    """#part-d-minigpt: the mask is computed from the loop indices, twice, like the scale; two loop nests, the
    first over 16 (batch, head) pairs and 64 queries, the second over 1024 rows."""
    return (main.text.count("auto tmp0 = x2 + ((-1L)*x1);") == 2 and main.text.count("static_cast<float>(0.25)") == 2
            and main.text.count("#pragma GCC ivdep") == 3 and "x0<static_cast<int64_t>(16L)" in main
            and "x1<static_cast<int64_t>(64L)" in main and "x0<static_cast<int64_t>(1024L)" in main
            and "local_buffer" not in main)


def claim_reductions(main):
    """#part-d-minigpt: The same two reductions as in TinyHead, each an 8-lane accumulator and a fold; the maximum
    is taken over masked scores."""
    return (main.text.count("at::vec::Vectorized<float> tmp_acc0_vec") == 2 and main.text.count("vec_reduce_all<float, 1>") == 2
            and "tmp_acc0_vec = at::vec::maximum(tmp_acc0_vec, tmp18);" in main
            and "auto tmp18 = decltype(tmp17)::blendv(tmp15, tmp17, tmp11" in main)
