"""Week 9: layers of a + b, dispatch keys, registration, TensorImpl, the trace-an-op lab, profiler drill."""

import json
from pathlib import Path

import pytest
import torch

from engine.source.sources import declarations
from snippets.phase25.theory01 import dispatch_table
from snippets.timing import compare
from snippets.week09 import (add_kernel, deliverable, dispatch_keys, dispatcher_header, dtype_keys, layers,
                             profiler_drill, registration, show_dispatch_trace, tensor_impl)
from workbench.deliverables import validate

ROOT = Path(__file__).resolve().parents[2]
CUDA_SNIPPETS = ("phase25/theory01/cuda_gemm.py", "week09/add_kernel_cuda.py", "week09/matmul_trace.py",
                 "week09/cudnn_conv.py", "week09/show_dispatch_trace.py",
                 "week09/sync_timing.py", "week09/profiler_drill.py", "week09/layers.py",
                 "phase25/theory01/addmm_table.py")


def test_layers_of_a_plus_b():
    chain = layers.layers("cpu")
    assert chain["1. Python frontend (TorchFunctionMode)"] == ["add"]
    assert chain["2. dispatcher: ATen ops (TorchDispatchMode) and key set"][0] == "aten.add.Tensor"
    rows = chain["3. rows of aten::add.Tensor visited"]
    assert rows[0].startswith("AutogradCPU") and rows[-1].startswith("CPU") and "RegisterCPU" in rows[-1]
    assert any("ufunc_inner_loop" in line for line in chain["4. ATen: how add.out is declared"])


def test_dispatch_keys_order_corrects_the_text():
    assert dispatch_keys.by_priority(dispatch_keys.COMMON_STACK) == ["AutocastCUDA", "AutogradCUDA", "CUDA"]
    order = dispatch_keys.order_for()
    assert order[-2:] == ["CUDA", "CPU"] and "AutogradXLA" not in order and "AutogradCPU" in order
    assert {"CPU", "CUDA", "Meta"} <= set(dispatch_keys.backends())


def test_registration_from_python_is_scoped():
    before = dispatch_table.table("aten::add.Tensor")
    report = registration.experiment()
    assert report["before"] == report["after the block"] and "RegisterCPU" in report["before"]
    assert "torch/library.py" in report["inside the block"]
    assert report["a + b inside the block"] == "[3.0, 3.0, 3.0]; my_add_cpu called 1 time(s)"
    assert report["a + b on meta inside the block"].endswith("calls now 1")
    assert report["a + b after the block"] == "calls now 1"
    assert dispatch_table.table("aten::add.Tensor") == before


def test_tensor_is_storage_plus_metadata():
    views = tensor_impl.views()
    assert all(line.endswith("True") for name, line in views.items() if name != "x.t().contiguous()")
    assert views["x.t().contiguous()"].endswith("False")
    assert "strides (1, 4)" in views["x.t()"] and "offset 4" in views["x[1:, ::2]"]
    assert tensor_impl.rebuilt_from_storage().endswith("True")
    _, index, in_view, in_storage = tensor_impl.element_address(1, 1)
    assert (index, in_view, in_storage) == (10, 10.0, 10.0)
    contiguity = tensor_impl.contiguity()
    assert contiguity["x.t().view(12)"].startswith("RuntimeError: view size is not compatible")
    assert contiguity["x.t().reshape(12)"].endswith("shares storage False")
    assert tensor_impl.storage_of_x().startswith("48 bytes = 12 elements x 4 bytes")


def test_show_dispatch_trace_is_silent_and_print_registrations_missing():
    stdout, stderr_bytes = show_dispatch_trace.traced_run()
    assert stdout == "sum: [2.0, 2.0]" and stderr_bytes == 0
    assert not hasattr(torch._C, "_dispatch_print_registrations")
    assert "_dispatch_dump_table" in show_dispatch_trace.dispatch_functions()


def test_dispatcher_header_explains_the_silence():
    blocks = dispatcher_header.guarded_blocks()
    assert [dispatcher_header.enclosing_function(b[0][0]) for b in blocks] == [
        "call", "redispatch", "callBoxed", "redispatchBoxed"]
    assert all("show_dispatch_trace()" in "".join(line for _, line in b) for b in blocks)
    assert dispatcher_header.build_flags() == {"BUILD_TYPE": "Release", "-DNDEBUG in CXX_FLAGS": "True"}
    link = dispatcher_header.source_link(blocks[0][0][0])
    assert link.startswith("https://github.com/pytorch/pytorch/blob/v2.") and link.endswith(f"#L{blocks[0][0][0]}")


def test_add_kernel_comes_from_the_ufunc_generator():
    template = "\n".join(add_kernel.functor_template())
    assert "struct CUDAFunctorOnSelf_add" in template and "ufunc::add(" in template


def test_profiler_drill_picks_ops_above_five_percent():
    prof = profiler_drill.training_steps("cpu", batch=2)
    rows = profiler_drill.self_times(prof, "cpu")
    total = sum(row[1] for row in rows)
    hot = profiler_drill.above_threshold(rows)
    assert hot and all(share > 0.05 for _, share in hot)
    per_op = {name: sum(t for n, t, _, _ in rows if n == name) for name, _, _, _ in rows}
    assert {name for name, _ in hot} == {name for name, time in per_op.items() if time / total > 0.05}
    assert any(name == "aten::addmm" and "[[600], [128, 64], [64, 600]" in shapes for name, _, _, shapes in rows)
    assert profiler_drill.call_site(prof, "aten::addmm")[-1].startswith("snippets/week09/profiler_drill.py(")


def test_dtype_is_not_a_dispatch_key():
    found = dtype_keys.key_sets()
    reference = found["float32, CPU, strided"]
    assert all(found[label] == reference for label in ("float64", "int64", "bfloat16", "requires_grad=True",
                                                        "float32 under torch.no_grad()"))
    assert found["sparse COO layout"][-1] == "SparseCPU" and found["meta device"][-1] == "Meta"
    assert not any(key.startswith("Autograd") for key in found["float32 under torch.inference_mode()"])


def test_accumulate_grad_runs_once_per_parameter_and_only_detaches():
    prof = profiler_drill.training_steps("cpu", batch=2)
    grads = profiler_drill.accumulate_grad(prof)
    parameters = len(list(profiler_drill.load_pretrained().parameters()))
    assert grads["calls"] == 3 * parameters
    assert set(grads["below"]) == {"aten::detach"} and grads["largest_us"] <= grads["self_us"]


def test_sync_timing_verdicts_read_as_the_claims_expect():
    times = {"perf_counter, synchronize before and after": [21.4, 21.5, 21.45], "CUDA events": [21.44, 21.45, 21.46]}
    line = str(compare(times, "perf_counter, synchronize before and after", "CUDA events"))
    assert " tie (" in line and "perf_counter, synchronize before and after" in line


def test_deliverable_writes_trace_md(tmp_path):
    out = deliverable.write_experiment(tmp_path / "week09-trace", device="cpu")
    assert sorted(p.name for p in out.iterdir()) == ["TRACE.md", "manifest.json"]
    assert all(deliverable.check_acceptance(out).values()), deliverable.check_acceptance(out)
    assert json.loads((out / "manifest.json").read_text())["device"] == "cpu"
    assert validate("week09", out, tmp_path / "no-mywork") is None  # tests/test_deliverables.py breaks it


@pytest.mark.parametrize("rel", CUDA_SNIPPETS)
def test_cuda_snippets_declare_cuda_and_a_short_timeout(rel):
    found = declarations(ROOT / "snippets" / rel)
    assert "cuda" in found.devices and found.timeout <= 60 or rel.endswith(("layers.py", "addmm_table.py"))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU")
def test_cuda_snippets_run():
    from snippets.phase25.theory01 import cuda_gemm
    from snippets.week09 import add_kernel_cuda, cudnn_conv, matmul_trace, sync_timing

    for module in (cuda_gemm, add_kernel_cuda, cudnn_conv, matmul_trace, sync_timing):
        module.main()
