"""Theory 03's claims about Dynamo, AOTAutograd and Inductor, on TinyHead."""

import logging
import re

import torch

from snippets.phase25.theory03 import graph_break, recompile
from snippets.phase25.theory03.aot_graphs import aot_graphs
from snippets.phase25.theory03.dynamo_capture import capture, node_table
from snippets.phase25.theory03.dynamo_guards import guard_lines
from snippets.phase25.theory03.inductor_code import (PINNED_CPU, aten_ops, call_function, decomposed_graph,
                                                     generated_code, kernels)
from snippets.phase25.theory03.readable import ROOT, captured_logs, tidy
from snippets.phase25.theory03.tiny_head import D_MODEL, VOCAB, model_and_input
from snippets.phase25.theory03.torchscript_history import script

# The shape of a module Inductor writes for a GPU (its format, not a recorded output): kernels are
# strings passed to async_compile.triton, and call() is a module-level function.
TRITON_MODULE = '''
triton_per_fused__softmax_0 = async_compile.triton('triton_per_fused__softmax_0', """
@triton.jit
def triton_per_fused__softmax_0(in_out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 2
""", device_str='cuda')


async_compile.wait(globals())

def call(args):
    arg0_1, = args
    with torch.cuda._DeviceGuard(0):
        triton_per_fused__softmax_0.run(buf0, 2, 600, stream=stream0)
    return (buf0, )


def benchmark_compiled_module(times=10, repeat=10):
    pass
'''.replace('"""', "'''")


def test_dynamo_captures_one_graph_with_the_parameters_as_inputs():
    model, x = model_and_input()
    graphs = capture(model, x)
    assert len(graphs) == 1
    rows = node_table(graphs[0])
    assert [op for op, _, _ in rows] == ["placeholder"] * 3 + ["call_function"] * 2 + ["output"]
    assert [shape for _, _, shape in rows[:5]] == [str((VOCAB, D_MODEL)), str((VOCAB,)), str((2, D_MODEL)),
                                                   str((2, VOCAB)), str((2, VOCAB))]
    assert [name for _, name, _ in rows[3:5]] == ["linear", "softmax"]


def test_guards_pin_every_tensor_and_hide_object_ids():
    model, x = model_and_input()
    guards = guard_lines(model, x)
    tensor_checks = [check for kind, check in guards if kind == "TENSOR_MATCH"]
    assert len(tensor_checks) == 3
    assert "L['x']" in tensor_checks[0] and f"size=[2, {D_MODEL}]" in tensor_checks[0]
    assert all("torch.float32" in check for check in tensor_checks)
    kinds = {kind for kind, _ in guards}
    assert {"ID_MATCH", "TYPE_MATCH", "GLOBAL_STATE"} <= kinds
    assert all(not re.search(r"_id\([^)]*\d{6,}", check) for _, check in guards)  # no addresses left


def test_a_branch_on_tensor_data_breaks_the_graph_and_torch_where_does_not():
    model, x = model_and_input()
    broken = graph_break.explain(graph_break.head_with_branch, model, x)
    assert (broken.graph_count, broken.graph_break_count) == (2, 1)
    assert broken.break_reasons[0].user_stack[-1].line.strip() == "if logits.max() > 0:"
    assert graph_break.fullgraph_error(graph_break.head_with_branch, model, x).startswith("Data-dependent branching")
    fixed = graph_break.explain(graph_break.head_branchless, model, x)
    assert (fixed.graph_count, fixed.graph_break_count) == (1, 0)
    with torch.no_grad():
        torch.testing.assert_close(graph_break.head_branchless(model, x), graph_break.head_with_branch(model, x))


def test_shape_changes_recompile_and_automatic_dynamic_makes_the_batch_symbolic():
    model, _ = model_and_input()
    rows = recompile.compiles_per_call(model, None)
    default = {batch: (graphs, reasons) for batch, graphs, reasons, _ in rows}
    assert default[2][0] == [f"[2, {D_MODEL}]"]
    assert re.fullmatch(rf"\[s\d+, {D_MODEL}\]", default[3][0][0])
    assert "size mismatch at index 0. expected 2, actual 3" in default[3][1][0]
    assert default[5] == ([], [])  # the symbolic graph is reused
    assert [ran for *_, ran in rows] == [0, 1, 1, 2]  # the graph each call ran, in order of compilation
    assert default[1][0] == [f"[1, {D_MODEL}]"] and "2 <= x.size()[0]" in default[1][1][0]
    static = recompile.compiles_per_call(model, False)
    assert all(graphs == [f"[{batch}, {D_MODEL}]"] for batch, graphs, _, _ in static)
    assert [len(reasons) for _, _, reasons, _ in static] == [0, 1, 2, 3]


def test_aot_autograd_builds_a_joint_graph_and_splits_it_at_the_saved_tensors():
    model, x = model_and_input()
    graphs = aot_graphs(model, x)
    assert set(graphs) == {"joint", "forward", "backward"}
    assert "tangents" in graphs["joint"] and "aten.addmm.default" in graphs["joint"]
    assert "aten._softmax_backward_data.default" in graphs["joint"]
    assert "aten._softmax.default" in graphs["forward"] and "_softmax_backward_data" not in graphs["forward"]
    assert "return (_softmax, primals_3, detach_1)" in graphs["forward"]  # output, then what backward saves
    signature = next(line for line in graphs["backward"].splitlines() if "def forward(" in line)
    assert re.findall(r"(\w+): \"", signature) == ["primals_3", "detach_1", "tangents_1"]
    assert "aten.mm.default" in graphs["backward"] and "aten.sum.dim_IntList" in graphs["backward"]


def test_inductor_decomposes_softmax_and_fuses_it_into_one_cpp_kernel():
    model, x = model_and_input()
    assert aten_ops(decomposed_graph(model, x)) == [
        "aten.permute.default", "aten.addmm.default", "aten.amax.default", "aten.sub.Tensor",
        "aten.exp.default", "aten.sum.dim_IntList", "aten.div.Tensor"]
    code = generated_code(model, x, PINNED_CPU)
    assert list(kernels(code)) == ["cpp_fused__softmax_0"]
    call = call_function(code)
    assert call.startswith("def call(") and "extern_kernels.addmm(" in call
    assert "buf2" not in call  # exp's intermediate was fused away
    kernel = kernels(code)["cpp_fused__softmax_0"]
    assert 'extern "C"' in kernel and "#pragma omp" not in kernel  # one thread pinned
    assert "x1+=static_cast<int64_t>(8L)" in kernel  # 256-bit vectors: 8 floats


def test_kernel_and_call_extraction_understand_the_triton_module_format():
    assert list(kernels(TRITON_MODULE)) == ["triton_per_fused__softmax_0"]
    assert kernels(TRITON_MODULE)["triton_per_fused__softmax_0"].startswith("@triton.jit")
    call = call_function(TRITON_MODULE)
    assert call.startswith("def call(args):") and call.rstrip().endswith("return (buf0, )")
    assert "benchmark_compiled_module" not in call


def torch_handlers() -> dict[str, list]:
    """The kind and level of every handler on torch's loggers."""
    return {name: [(type(h).__name__, h.level) for h in logger.handlers]
            for name, logger in logging.root.manager.loggerDict.items()
            if name.split(".")[0] == "torch" and isinstance(logger, logging.Logger)}


def test_captured_logs_collect_only_the_requested_artifact_and_restore_handlers():
    model, x = model_and_input()
    torch._logging.set_logs()
    before = torch_handlers()
    torch._dynamo.reset()
    with captured_logs("recompiles") as records:
        compiled = torch.compile(model, backend="eager", dynamic=False)
        compiled(x)
        compiled(torch.randn(3, D_MODEL))
    assert len(records) == 1 and records[0].startswith("Recompiling function forward")
    assert torch_handlers() == before and any(before.values())


def test_tidy_removes_machine_paths_and_object_ids():
    text = f"{ROOT}/snippets/a.py and {torch.__file__} ___check_obj_id(G['torch'], 140250742137584)"
    tidied = tidy(text)
    assert str(ROOT) not in tidied and tidied.startswith("snippets/a.py")
    assert "torch/__init__.py" in tidied and "<id>" in tidied and "1402" not in tidied


def test_torchscript_still_scripts_and_is_deprecated():
    model, _ = model_and_input()
    graph, messages = script(model)
    assert any(m.startswith("DeprecationWarning") and "torch.compile" in m for m in messages)
    assert "aten::softmax" in graph and str(ROOT) not in graph


def test_pipeline_counts_one_compile_and_draws_it():
    from snippets.phase25.theory03 import pipeline

    stages = pipeline.one_compile()
    assert (stages["dynamo graphs"], stages["dynamo inputs"], stages["dynamo calls"]) == (1, 3, 2)
    assert len(stages["aten ops"]) == 7 and stages["kernels"] == ["cpp_fused__softmax_0"]
    assert stages["extern calls"] == ["addmm"]
    diagram = pipeline.diagram(stages, "en")
    assert diagram.startswith("<svg ") and "\n<title>torch.compile(TinyHead): " in diagram and "\n\n" not in diagram
    assert diagram.count("marker-end=") == 3


def test_exercises_item_break_recompiles_and_relu_kernel():
    from snippets.phase25.theory03 import exercises

    graphs, breaks, reason = exercises.item_break()
    assert (graphs, breaks) == (2, 1) and "item()" in reason
    rows = exercises.compiles_per_call()
    assert [n for _, n, _ in rows] == [1, 0, 1, 1]
    assert [failures for _, _, failures in rows] == [
        [], [], ["0/0: tensor 'x' dtype mismatch. expected Float, actual Double"],
        ["0/1: GLOBAL_STATE changed: grad_mode", "0/0: GLOBAL_STATE changed: grad_mode"]]
    assert exercises.relu_kernels() == (["cpp_fused_relu_0"], ["addmm"])
