"""Theory 01: the dispatcher's table, key sets, composites, one-key registration, the subclass, GEMMs."""

import pytest
import torch

from snippets.phase25.theory01 import (addmm_table, composite, cpu_gemm, dispatch_table, key_order, key_sets,
                                       logging_tensor, native_functions, one_key, special_keys)
from snippets.phase25.theory01.normalise import normalise


def test_dumps_are_normalised():
    raw = torch._C._dispatch_dump_table("aten::addmm")
    text = normalise(raw)
    assert "/site-packages/" in raw and "<site-packages>/torch/_meta_registrations.py" in text
    assert "<pytorch>/build/aten/src/ATen/RegisterCPU" in text
    assert not any(part.startswith("/") for line in text.splitlines() for part in line.split()), text


def test_addmm_table_rows_and_kinds():
    rows = dispatch_table.table("aten::addmm")
    assert rows["CPU"].kind == "kernel" and "RegisterCPU" in rows["CPU"].where
    assert rows["AutogradCPU"].kind == "autograd kernel"
    assert rows["ADInplaceOrView"].fallthrough and rows["BackendSelect"].fallthrough
    assert sum(addmm_table.kinds().values()) == len(rows)
    if not torch.cuda.is_available():  # a CPU wheel fills CUDA from the composite kernel
        assert rows["CUDA"].kind == "default backend kernel"
    shown = [row.key for row in addmm_table.trimmed()]
    assert shown == dispatch_table.by_priority(shown) and shown[-1] == "CPU"


def test_priority_order_puts_autocast_above_autograd_above_backend():
    keys = ["CPU", "BackendSelect", "Python", "ADInplaceOrView", "AutogradCPU", "AutocastCPU"]
    assert dispatch_table.by_priority(keys) == ["AutocastCPU", "AutogradCPU", "ADInplaceOrView", "Python",
                                                "BackendSelect", "CPU"]


def test_linear_walk_visits_autograd_then_falls_through_to_cpu():
    keys, visited = addmm_table.linear_walk("cpu")
    assert [(r.key, r.fallthrough) for r in visited] == [
        ("AutogradCPU", False), ("ADInplaceOrView", True), ("BackendSelect", True), ("CPU", False)]


def test_key_sets_and_winners():
    sets = key_sets.layout_key_sets()
    assert sets["W.t() (a view)"] == sets["x"]
    assert sets["x.to_sparse()"].startswith("SparseCPU")
    assert "Conjugate" in sets["torch.complex(x, x).conj()"]
    winners = {name: winner for name, (_, winner) in key_sets.winning_keys().items()}
    assert winners == {"default": "AutogradCPU", "torch.no_grad()": "AutogradCPU",
                       "torch.inference_mode()": "ADInplaceOrView", "torch.autocast('cpu')": "AutocastCPU"}
    include, exclude = key_sets.thread_local_sets()["torch.autocast('cpu')"]
    assert "AutocastCPU" not in exclude and "AutocastCPU" in key_sets.thread_local_sets()["default"][1]


def test_composites_decompose_and_explicit_kernels_do_not():
    kernels = composite.computed_kernels()
    for op in ("aten::linear", "aten::matmul"):
        assert all(kind.startswith("math kernel (RegisterCompositeImplicitAutograd") for kind in kernels[op])
    assert kernels["aten::addmm"][1].startswith("kernel (RegisterCPU")
    assert kernels["aten::t"][1].startswith("default backend kernel (RegisterCompositeExplicitAutograd")
    reached = composite.what_reaches_the_backend()
    assert all("linear" not in op and "matmul" not in op for ops in reached.values() for op in ops)
    assert reached["F.linear(x, W, b)      x (2, 64)"] == ["aten.t.default", "aten.addmm.default"]
    assert "aten.addmm.default" in reached["F.linear(h, W, b)      h (4, 8, 64)"]
    assert reached["torch.matmul(hT, Wt)   hT = h.transpose(0, 1)"][0] == "aten.clone.default"
    assert "CompositeImplicitAutograd: linear" in native_functions.trimmed("linear")
    assert "CPU: addmm_out_cpu" in native_functions.trimmed("addmm.out")


def test_special_keys():
    keys, rows = special_keys.factory_walk()
    assert keys == "BackendSelect, ADInplaceOrView"
    assert rows[-1].key == "BackendSelect" and not rows[-1].fallthrough
    views = special_keys.inplace_or_view_rows()
    assert views["aten::addmm"] == "fallthrough" and views["aten::t"].startswith("kernel")
    assert special_keys.view_and_inplace()["h._version before and after h.add_(1)"] == "0 -> 1"
    rows, result = special_keys.autocast_linear()
    assert [r.key for r in rows] == ["AutocastCPU", "AutogradCPU"] and result.startswith("torch.bfloat16")


def test_one_key_override_changes_only_cpu_and_leaves_nothing_behind():
    before = dispatch_table.table("aten::addmm")
    report = one_key.experiment()
    assert report["aten::addmm before"] == report["aten::addmm after the block"]
    inside = dict(zip(("AutogradCPU", "CPU", "Meta"), report["aten::addmm inside the block"]))
    assert "torch/library.py" in inside["CPU"] and inside["AutogradCPU"] == report["aten::addmm before"][0]
    assert report["linear(x, W, b) inside the block"][0].startswith("our kernel ran 1 time(s)")
    assert report["linear(x, W, b) inside the block"][1] == "y.grad_fn: AddmmBackward0"
    assert report["linear(x, W, b) inside the block"][2].endswith("True, True")
    assert report["linear(x, W, b) after the block"] == ["our kernel ran 0 more time(s)"]
    dump = report['_dispatch_dump("aten::addmm") inside the block, CPU and Meta']
    assert [line.split("  ")[0] for line in dump] == ["CPU", "CPU (inactive)", "Meta", "Meta (inactive)"]
    assert [line.split()[0] for line in one_key.registrations()] == ["CPU", "Meta", "Meta"]
    assert dispatch_table.table("aten::addmm") == before


def test_key_order_and_scoped_namespace():
    for _ in range(2):  # the namespace is freed: a second definition works
        report = key_order.experiment()
    assert report["schema only, no kernel"][0].startswith("NotImplementedError: Could not run 'nmb_theory01::scale'")
    order = [line.split(" ")[0] for line in report["+ AutocastCPU kernel, inside torch.autocast('cpu')"][:-1]]
    assert order == ["AutocastCPU", "AutogradCPU", "CPU"]
    assert report["+ AutogradCPU kernel, x.requires_grad"][-1] == "-> y.requires_grad False"
    assert not hasattr(torch.ops.nmb_theory01, "scale")


def test_logging_tensor_sees_forward_and_backward():
    seen = logging_tensor.experiment()
    assert "Python" in seen["key set of LoggingTensor(x)"].split(", ")
    assert seen["forward: loss = F.linear(x, W, b).sum()"] == "t.default, addmm.default, sum.default"
    assert seen["backward: loss.backward()"].split(", ").count("mm.default") == 2
    assert seen["type(W.grad), W.grad.shape"] == "LoggingTensor, (600, 64)"


@pytest.mark.skipif(cpu_gemm.build_settings()["BLAS_INFO"] != "mkl", reason="MKL verbose needs an MKL build")
def test_cpu_gemm_calls_mkl_and_onednn():
    assert cpu_gemm.mkl_calls(torch.float32) == ["SGEMM(T,N,600,2,64,*,*,64,*,64,*,*,600)"]
    assert cpu_gemm.mkl_calls(torch.float64) == ["DGEMM(T,N,600,2,64,*,*,64,*,64,*,*,600)"]
    for call in cpu_gemm.onednn_calls(torch.bfloat16):  # present on CPUs with bfloat16 support
        assert call.startswith("matmul,") and call.endswith("2x64:64x600")


def test_exercise_keys_and_composites():
    from snippets.phase25.theory01 import exercises

    winners = {name: winner for name, (_, winner) in exercises.winning_keys().items()}
    assert winners.pop("made under inference_mode()") == "ADInplaceOrView"
    assert set(winners.values()) == {"AutogradCPU"}
    kinds = exercises.composite()
    assert kinds["aten::linear"] == kinds["aten::softmax.int"] == (False, ["CompositeImplicitAutograd"])
    assert kinds["aten::native_layer_norm"] == (True, ["CompositeExplicitAutograd"])
    assert exercises.decomposing(kinds) == ["aten::linear", "aten::matmul", "aten::softmax.int", "aten::dropout",
                                            "aten::layer_norm"]


@pytest.mark.skipif(cpu_gemm.build_settings()["BLAS_INFO"] != "mkl", reason="MKL verbose needs an MKL build")
def test_exercise_sgemm_letters_follow_the_strides():
    from snippets.phase25.theory01 import gemm_letters

    heads = list(gemm_letters.sgemm_heads().values())
    assert heads == ["SGEMM(T,N,600,2,64,...)", "SGEMM(N,N,600,2,64,...)", "SGEMM(T,T,600,2,64,...)"]


def test_key_stack_is_the_real_walk_and_draws_as_svg():
    from snippets.phase25.theory01 import key_stack

    layers = key_stack.stack()
    assert [layer["key"] for layer in layers] == ["AutocastCPU", "AutogradCPU", "ADInplaceOrView", "BackendSelect", "CPU"]
    assert [layer["visited"] for layer in layers] == [False, True, True, True, True]
    diagram = key_stack.diagram(layers, "en")
    assert diagram.startswith("<svg ") and 'role="img"' in diagram and "\n<title>aten::addmm" in diagram
    assert diagram.count('stroke-dasharray="5 5"') == 2  # the removed key's box and its line
    assert diagram.endswith("</svg>\n") and "\n\n" not in diagram  # one block of raw HTML
