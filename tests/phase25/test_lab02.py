"""Lab 02's acceptance: the Triton softmax as a custom op passes gradcheck and opcheck, compiles with
fullgraph=True and matches eager, the triton_op variant fails in the interpreter for the stated reason,
and the deliverable writes its folder."""

import json

import torch

from engine.source.sources import source_hash
from snippets.phase24.triton_softmax import kernels
from snippets.phase25.lab02 import compile_demo, deliverable, direct_launch, exercises, gradcheck_demo, inlined, no_fake, opcheck_demo, ops, wrong_fake
from snippets.phase25.lab02.generated import call_function, compile_step
from tests.deliverables import doubled, validated


def test_gradcheck_in_float64_full_and_fast():
    torch.manual_seed(0)
    assert gradcheck_demo.check((4, 10), fast_mode=False, device="cpu")
    assert gradcheck_demo.check((2, 600), fast_mode=True, device="cpu")


def test_opcheck_passes_every_test_for_every_sample():
    results = opcheck_demo.results("cpu")
    assert len(results) == len(opcheck_demo.samples("cpu"))
    for verdicts in results.values():
        assert set(verdicts) == {"test_schema", "test_autograd_registration", "test_faketensor",
                                 "test_aot_dispatch_dynamic"}
        assert set(verdicts.values()) == {"SUCCESS"}


def test_an_op_without_fake_runs_eagerly_but_does_not_trace():
    difference, failure = no_fake.without_fake()
    assert difference < 1e-6
    assert failure[0].startswith("TorchRuntimeError") and failure[1].startswith("There was no fake impl registered")


def test_the_op_is_the_kernel_and_its_gradient():
    x = torch.randn(3, 600, requires_grad=True)
    y = ops.softmax(x)
    assert torch.equal(y, kernels.softmax(x.detach()))
    (y * torch.arange(600.0)).sum().backward()
    x_ref = x.detach().clone().requires_grad_()
    (torch.softmax(x_ref, dim=-1) * torch.arange(600.0)).sum().backward()
    assert torch.allclose(x.grad, x_ref.grad, atol=1e-6)


def test_compile_fullgraph_matches_eager_and_keeps_the_op():
    torch.manual_seed(0)
    model, x = compile_demo.Head(), torch.randn(2, 64, requires_grad=True)
    explanation = torch._dynamo.explain(model)(x)
    assert (explanation.graph_count, explanation.graph_break_count) == (1, 0)
    difference, codes = compile_step(model, x)
    assert difference < 1e-6
    forward, backward = (call_function(code) for code in codes)
    assert "torch.ops.nmb.softmax.default(" in forward and "extern_kernels.addmm(" in forward
    assert "torch.ops.nmb.softmax_backward.default(" in backward


def test_triton_op_runs_eagerly_but_cannot_be_traced_in_the_interpreter():
    x = torch.randn(2, 600)
    assert torch.allclose(inlined.softmax_inlined(x), torch.softmax(x, dim=-1), atol=1e-7)
    assert type(kernels.softmax_kernel).__name__ == "InterpretedFunction"
    assert torch.library.wrap_triton(kernels.softmax_kernel) is kernels.softmax_kernel  # nothing to trace
    verdicts, error = inlined.attempt(lambda: torch.library.opcheck(inlined.softmax_inlined, (x,)))
    assert verdicts is None and "test_faketensor failed" in error
    compiled, error = inlined.attempt(lambda: compile_step(inlined.InlinedHead(), torch.randn(2, 64)))
    assert compiled is None and error.startswith("TorchRuntimeError")


def test_deliverable_writes_the_experiment_folder(tmp_path, root):
    out = deliverable.write_experiment(tmp_path / "lab02")
    assert sorted(p.name for p in out.iterdir()) == ["checks.json", "generated_backward.py",
                                                       "generated_forward.py", "manifest.json"]
    checks = json.loads((out / "checks.json").read_text())
    assert all(checks["gradcheck"].values())
    assert all(v == "SUCCESS" for verdicts in checks["opcheck"].values() for v in verdicts.values())
    assert checks["compile"]["graph_breaks"] == 0 and checks["compile"]["graphs"] == 1
    assert checks["compile"]["max_abs_difference_vs_eager"] < 1e-6
    assert checks["compile"]["calls_custom_op"] == {"forward": True, "backward": True}
    assert "torch.ops.nmb.softmax.default(" in (out / "generated_forward.py").read_text()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["torch"] == torch.__version__ and manifest["seed"] == deliverable.SEED
    assert manifest["code_hash"] == source_hash(root, root / "snippets/phase25/lab02/deliverable.py")
    assert {"timestamp", "triton", "device"} <= set(manifest)
    checks = deliverable.check_acceptance(out)
    assert len(checks) == 5 and all(checks.values()), checks
    validated("phase25/lab02", out, tmp_path,
              ("generated_forward.py", "", None, "/generated_forward.py is missing"),
              ("checks.json", r'"graphs": (\d+)', doubled, "checks.json's compile graphs and graph_breaks is (2, 0), expected (1, 0)"))
    (out / "generated_backward.py").write_text("extern_kernels.mm(buf0, buf1)\n")  # the checks can fail
    assert not deliverable.check_acceptance(out)["the generated forward calls nmb::softmax, the backward nmb::softmax_backward"]


def test_exercises():
    meta = exercises.on_meta()
    assert meta["shape"] == (2, 600) and str(meta["device"]) == "meta" and meta["stride"] == (600, 1)
    wrong = wrong_fake.wrong_strides()
    assert wrong["max |difference| to torch.softmax"] < 1e-6
    assert wrong["opcheck"].startswith("test_faketensor failed: Stride mismatch!")
    calls = exercises.gradcheck_calls(fast_mode=True)
    assert calls["softmax"] <= 4 and calls["softmax_backward"] <= 4
    assert calls["zero dy"] == 2  # gradcheck's multiply-by-grad_output test and the undefined gradient test


def test_direct_launch_has_no_graph_and_does_not_compile_in_the_interpreter():
    result = direct_launch.direct_launch()
    assert result["y.requires_grad"] is False and result["y.grad_fn"] is None
    assert "tracing kernels.softmax: wrap(softmax_kernel)[" in result["torch.compile(fullgraph=True)"]
