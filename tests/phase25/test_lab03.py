"""Lab 03's acceptance: compile match, the fused kernel, its tied annotation, timings and export. The dump
(Part B) and the deliverable folder (Part G) are checked by the build's claims on the outputs the page shows."""

import re

import pytest
import torch

from snippets.minigpt.config import CONFIG
from snippets.phase25.lab03 import exercises, part_cd_triton, part_d_annotation, part_d_minigpt, stretch_minigpt_gpu
from snippets.phase25.lab03.deliverable import FUSED_OPS
from snippets.phase25.lab03.fold import METADATA, WIDTH, fold, notes, recorded_output
from snippets.phase25.lab03.minigpt_compile import (ROWS, SEQ_LEN, attention_lines, attention_softmax, compile_minigpt,
                                                    kernel_launches)
from snippets.phase25.lab03.part_a_compile_match import TOLERANCE, compile_match
from snippets.phase25.lab03.part_b_dump import logs_after_import
from snippets.phase25.lab03.part_c_kernel import fused_softmax_kernel, kernel_arguments
from snippets.phase25.lab03.part_d_annotation import NOTES, Note, StaleAnnotation, blocks, kernel_sha256, listing, markdown
from snippets.phase25.lab03.part_e_bench import rounds, variants
from snippets.phase25.lab03.stretch_export import export_tiny_head, save_and_reload
from snippets.phase25.lab03.stretch_max_autotune import gemm_choice
from snippets.phase25.lab03.triton_reading import SOFTMAX_STEPS, annotate, pointers
from snippets.phase25.theory03.inductor_code import call_function, kernels
from snippets.phase25.theory03.tiny_head import model_and_input

# A persistent-reduction softmax in the format Inductor writes for a GPU (a format, not a recording).
TRITON_SOFTMAX = """@triton.jit
def triton_per_fused__softmax_0(in_out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 2
    r0_numel = 600
    R0_BLOCK: tl.constexpr = 1024
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    tmp0 = tl.load(in_out_ptr0 + (r0_1 + 600*x0), r0_mask & xmask, other=0.0)
    tmp5 = tl.where(r0_mask & xmask, tmp0, float("-inf"))
    tmp6 = triton_helpers.max2(tmp5, 1)[:, None]
    tmp7 = tmp0 - tmp6
    tmp8 = tl_math.exp(tmp7)
    tmp12 = tl.sum(tmp8, 1)[:, None]
    tmp15 = (tmp8 / tmp12)
    tl.store(in_out_ptr0 + (r0_1 + 600*x0), tmp15, r0_mask & xmask)"""


@pytest.fixture(scope="module")
def fused():
    return fused_softmax_kernel()


@pytest.fixture(scope="module")
def attention():
    return part_d_minigpt.attention_kernel()


def test_compiled_tiny_head_matches_eager_within_1e_6():
    result = compile_match()
    assert result["passes"] and result["max_abs_diff"] < TOLERANCE
    assert result["max_abs_diff"] < 10 * result["ulp_at_max"]  # a rounding difference, nothing more


def test_compiled_minigpt_is_close_and_fuses_its_attention_softmax():
    result = compile_minigpt()
    verdict = result["assert_close"]
    assert verdict["verdict"] == "passes" and verdict["share"] <= 1  # assert_close's verdict is its worst share
    assert result["logits_diff"] < 1e-6 * 100 * result["largest_logit"]
    name, source = attention_softmax(result["code"])
    assert all(op in name for op in ("_softmax", "masked_fill", "tril"))
    launches = dict(kernel_launches(result["code"]))
    assert launches[name] == CONFIG.n_layers  # one attention per transformer block
    found = {meaning for _, _, meaning in attention_lines(source)}
    assert any("causal mask" in m for m in found) and any("masked_fill" in m for m in found)


def test_torch_logs_after_import_is_ignored_and_set_logs_works():
    effects = logs_after_import()
    assert effects["os.environ['TORCH_LOGS'] = 'output_code'"] == "output_code enabled: False"
    assert int(effects["torch._logging.set_logs(output_code=True)"].split()[0]) > 0


def test_the_fused_kernel_reads_the_addmm_output_and_writes_the_result(fused):
    name, source, code = fused
    call = call_function(code)
    pointers_of = dict(kernel_arguments(name, source, code))
    addmm_out = re.search(r"extern_kernels\.addmm\(.*out=(buf\d+)\)", call).group(1)
    returned = re.search(r"return \((buf\d+), \)", call).group(1)
    assert pointers_of[addmm_out] == "in_ptr0"
    assert pointers_of[returned] == "out_ptr2"


def test_the_annotation_is_tied_to_the_generated_kernel(fused):
    """Fails when a torch upgrade changes the kernel: re-read it and update NOTES and KERNEL_SHA256."""
    _, kernel, _ = fused
    assert kernel_sha256(kernel) == part_d_annotation.KERNEL_SHA256
    parts = blocks(kernel)
    assert len(parts) == len(NOTES)
    assert sum(len(lines) for _, lines, _ in parts) == len(kernel.splitlines())  # every line annotated once
    assert [first for first, _, _ in parts] == sorted({first for first, _, _ in parts})


def test_the_annotation_refuses_a_changed_kernel(fused):
    _, kernel, _ = fused
    changed = kernel.replace("tmp3.exp()", "tmp3.exp_u20()")
    with pytest.raises(StaleAnnotation, match="kernel changed"):
        blocks(changed)
    shuffled = (NOTES[1], NOTES[0]) + NOTES[2:]
    with pytest.raises(StaleAnnotation, match="not found in order"):
        blocks(kernel, shuffled)
    with pytest.raises(StaleAnnotation, match="not found in order"):
        blocks(kernel, NOTES + (Note("no such line", ""),))


def test_the_annotation_names_the_fused_ops_and_both_reductions(fused):
    name, kernel, _ = fused
    text = markdown(kernel, name)
    assert all(op in text for op in FUSED_OPS)
    assert text.count("```cpp") == len(NOTES)
    assert "Reduction 1" in text and "Reduction 2" in text
    assert listing(kernel).count("// [") == len(NOTES)


def test_triton_reading_finds_every_softmax_step():
    text, found = annotate(TRITON_SOFTMAX)
    assert set(found) == set(SOFTMAX_STEPS) and all(found.values())
    assert pointers(TRITON_SOFTMAX) == ["in_out_ptr0"]
    assert "# <- STORE" in text.splitlines()[-1]


def test_eager_compiled_and_generated_call_agree_and_can_be_timed():
    model, x = model_and_input()
    with torch.no_grad():
        found = variants(model, x, "cpu")  # asserts that the generated call() computes model(x)
        assert set(found) == {"eager", "torch.compile", "generated call() only"}
        torch.testing.assert_close(found["torch.compile"](), found["eager"]())
        times = rounds(found, "cpu", loop_s=0.002, count=2)
        assert set(times) == set(found) and all(len(t) == 2 and min(t) > 0 for t in times.values())


def test_the_gemm_choice_is_found_outside_call_too():
    """With CUDA graphs, call() hands the work to a graph partition; the extern call sits there."""
    partitioned = "def partition_0(args):\n    extern_kernels.bias_addmm(arg1_1, arg2_1, out=buf0)\n\n" \
                  "def call(self, args):\n    return self.partitions[0](args)\n"
    assert gemm_choice(partitioned) == "extern_kernels.bias_addmm (cuBLAS)"
    assert gemm_choice("def call(self, args):\n    pass\n") == "neither a template nor an extern call"


def test_the_exported_program_runs_without_the_model_class(tmp_path):
    model, x = model_and_input()
    loaded = save_and_reload(export_tiny_head(model, x), tmp_path / "tiny_head.pt2")
    _, x7 = model_and_input(7)
    assert torch.equal(loaded.module()(x7), model(x7))
    ops = [str(n.target) for n in loaded.graph.nodes if n.op == "call_function"]
    assert ops == ["aten.linear.default", "aten.softmax.int"]


def test_the_minigpt_attention_annotation_is_tied_to_its_kernel(attention):
    """Fails when a torch upgrade changes the kernel: re-read it and update the notes and their sha256."""
    _, kernel, _ = attention
    notes, sha = part_d_minigpt.NOTES, part_d_minigpt.KERNEL_SHA256
    assert kernel_sha256(kernel) == sha
    parts = blocks(kernel, notes, sha)
    assert sum(len(lines) for _, lines, _ in parts) == len(kernel.splitlines())  # every line annotated once
    with pytest.raises(StaleAnnotation, match="kernel changed"):
        blocks(kernel.replace("0.25", "0.5"), notes, sha)
    text = listing(kernel, notes, sha)
    assert text.count("// [") == len(notes)
    assert all(f"aten.{op}" in text for op in ("mul", "bitwise_not", "masked_fill", "amax", "sub", "exp", "sum", "div"))


def test_call_hands_the_attention_kernel_the_first_bmm_output_to_overwrite(attention):
    name, kernel, code = attention
    lines = part_d_minigpt.feeding_lines(name, code)
    assert lines[-1].startswith(f"{name}(")
    (bmm,) = [line for line in lines if line.startswith("extern_kernels.bmm(")]
    aliases = dict(re.findall(r"^(buf\d+) = (?:reinterpret_tensor\()?(buf\d+)\b", "\n".join(lines), re.M))
    buffer = next(b for b, p in kernel_arguments(name, kernel, code) if p == "in_out_ptr0")
    while buffer in aliases:
        buffer = aliases[buffer]
    assert bmm.endswith(f"out={buffer})")


def test_a_new_batch_size_changes_only_the_bound_of_the_row_loop():
    (two, four), = exercises.changed_lines(4)
    assert "x0<static_cast<int64_t>(2L)" in two and two.replace("(2L)", "(4L)") == four


def test_new_weight_values_reuse_the_graph_and_a_new_python_float_compiles_once_more():
    counts, graphs = exercises.guarded_edits()
    assert [count for _, count in counts] == [1, 1, 1, 2, 2]
    assert len(graphs) == 2 and graphs[1] == graphs[0] + ["Tensor()"]


def test_the_attention_kernel_numbers_come_from_the_model_shape(attention):
    _, kernel, _ = attention
    heads, rows, seq = CONFIG.n_heads, ROWS, SEQ_LEN
    assert [bound for _, bound in exercises.loop_bounds(kernel)] == [rows * heads, seq, seq, seq, rows * heads * seq, seq, seq]
    assert set(exercises.FLOAT_CONSTANT.findall(kernel)) == {str((CONFIG.d_model // heads) ** -0.5)}


def test_training_compiles_a_forward_and_a_backward_module():
    forward, backward = exercises.training_modules()
    assert list(kernels(forward)) == ["cpp_fused__softmax_0"]
    assert list(kernels(backward)) == ["cpp_fused__softmax_backward_data_0", "cpp_fused_sum_1"]
    assert re.findall(r"extern_kernels\.(\w+)\(", call_function(backward)) == ["mm", "mm"]


def test_fold_puts_notes_above_elides_metadata_and_wraps_code_after_commas():
    signature = "def kernel(" + ", ".join(f"argument_{n}" for n in range(10)) + "):"
    text = ("    a = f(x)    # <- first\n    b = f(a)    # <- first\n    c = 1\n" + signature +
            "\n# ^ the signature\n    triton_meta={'signature': {'p': '*fp32'}},\n  x2  " + "k" * 120)
    lines = fold(text).splitlines()
    assert lines[:4] == ["    # ↓ first", "    a = f(x)", "    b = f(a)", "    c = 1"]  # a repeated note once
    assert lines[4] == "# ↓ the signature"
    assert lines[5].startswith("def kernel(argument_0,") and lines[5].endswith(",") and len(lines[5]) <= WIDTH
    assert lines[6].startswith("    argument_") and lines[6].endswith("argument_9):")
    assert lines[7] == "    triton_meta={...},  # 29 characters, elided here"
    assert lines[8] == "  x2  " + "k" * 120  # a word longer than the page stays whole


@pytest.mark.parametrize("module", [part_cd_triton, stretch_minigpt_gpu])
def test_a_folded_recording_keeps_every_character_of_its_code(module):
    recorded = recorded_output(module.__file__)
    folded = fold(recorded).splitlines()
    kept = [METADATA.sub(r"\1\2={...}\4", code) for code, _ in notes(recorded)]
    shown = [line.split("  # ")[0] if line.endswith("elided here") else line
             for line in folded if not line.lstrip().startswith("# ↓")]
    # whitespace and "#" aside (a wrapped comment starts each of its lines with one), nothing changed
    squeezed = ["".join("".join(lines).split()).replace("#", "") for lines in (shown, kept)]
    assert squeezed[0] == squeezed[1]
    assert sum(len(line) > WIDTH for line in folded) < sum(len(line) > WIDTH for line in recorded.splitlines())
