"""Lab 00's acceptance, on what torch 2.13 really does."""

import pytest
import torch

from snippets.phase25.lab00 import deliverable, exercises, part_a_baseline, part_b_key_sets, part_c_trace, part_d_addmm, stretch
from snippets.phase25.lab00.part_e_backward import backward_calls
from snippets.phase25.lab00.part_e_profiler import profile_linear, summary
from tests.deliverables import doubled, validated


def test_baseline_is_addmm_backward():
    shape, node = part_a_baseline.baseline()
    assert shape == torch.Size([2, 600]) and node == "AddmmBackward0"


def test_key_sets_ignore_dtype_and_grad_flag():
    rows = part_b_key_sets.key_sets()
    cpu = "DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)"
    assert rows["x (float32, requires_grad=True)"] == cpu
    assert rows["x.detach() (requires_grad=False)"] == cpu
    assert rows["torch.empty(1, dtype=torch.float16)"] == cpu
    assert rows["made under torch.inference_mode()"] == "DispatchKeySet(CPU, AutocastCPU)"
    assert part_b_key_sets.missing_method().startswith("AttributeError")


def test_linear_is_seen_above_and_decomposed_below_the_dispatcher():
    traces = part_c_trace.traces()
    assert traces["TorchFunctionMode (Python API)"] == ["linear"]
    assert traces["make_fx(pre_dispatch=True)"] == ["aten.linear.default"]
    assert traces["TorchDispatchMode (below autograd)"] == ["aten.t.default", "aten.addmm.default"]


def test_direct_addmm_needs_fewer_ops_only_with_w_t_made_before():
    ops = part_d_addmm.comparisons()
    assert len(ops["torch.addmm(b, x, Wt), Wt = W.T made before"]) < len(ops["F.linear(x, W, b)"])
    assert ops["torch.addmm(b, x, W.T)"] == ["aten.permute.default", "aten.addmm.default"]
    assert "aten.mm.default" in ops["(x @ W.T) + b"]


def test_profiler_rows_for_forward_and_backward():
    rows = summary(profile_linear())
    names = {name for name, _, _ in rows}
    assert {"aten::linear", "aten::addmm", "AddmmBackward0"} <= names
    assert ("aten::linear", "[[2, 64], [600, 64], [600]]", 1) in rows
    assert rows == summary(profile_linear())  # no timings: the same every run


def test_addmm_backward_runs_both_mm_and_t_backward_only_transposes():
    ops = {node: [call.split()[0] for call in calls] for node, calls in backward_calls(profile_linear()).items()}
    assert ops["AddmmBackward0"].count("aten::mm") == 2
    assert ops["TBackward0"] == ["aten::t"]


def test_grad_modes_and_half():
    modes = stretch.grad_modes()
    assert "AutogradCPU" in modes["torch.no_grad(): key set of the output"]
    assert modes["torch.no_grad(): autograd keys excluded for this thread"] == "none"
    assert modes["torch.inference_mode(): key set of the output"] == "DispatchKeySet(CPU, AutocastCPU)"
    assert "AutogradFunctionality" in modes["torch.inference_mode(): autograd keys excluded for this thread"]
    half = stretch.half_input()
    assert half["F.linear(x.half(), W, b)"].startswith("RuntimeError: mat1 and mat2 must have the same dtype")
    assert half["ops under torch.autocast('cpu', bfloat16)"].count("aten._to_copy.default") == 3
    assert half["ops of F.linear(x.half(), W.half(), b.half())"] == "aten.t.default, aten.addmm.default"
    assert half["dtype of its output"] == "torch.float16"


def test_exercises():
    flops = exercises.flops_of_linear()
    assert flops["aten.mm.default"] == 2 * flops["aten.addmm.default"] == 4 * 2 * 64 * 600
    assert flops["total"] == flops["FlopCounterMode"]
    assert exercises.batched_input() == ["aten.view.default", "aten.t.default", "aten.addmm.default", "aten.view.default"]
    modes = exercises.grad_modes()
    assert modes["torch.no_grad()"] == ["aten.t.default", "aten.addmm.default"]
    assert modes["torch.inference_mode()"] == ["aten.linear.default"]
    calls = exercises.forward_and_backward()
    assert calls[:2] == ["aten.t.default", "aten.addmm.default"] and calls.count("aten.mm.default") == 2


def test_deliverable_meets_the_acceptance_list(tmp_path):
    out = deliverable.write_experiment(tmp_path / "25-dispatcher-trace")
    assert sorted(p.name for p in out.iterdir()) == ["REPORT.md", "manifest.json", "trace.log"]
    checks = deliverable.check_acceptance(out)
    assert len(checks) == 6 and all(checks.values()), checks
    validated("phase25/lab00", out, tmp_path,
              ("trace.log", "", None, "/trace.log is missing: the lab's deliverable has a file trace.log"),
              ("REPORT.md", r"^## Interpretation", lambda m: "## Reading", 'REPORT.md has no section "## Interpretation..."'),
              ("REPORT.md", r"^- `F.linear\(x, W, b\)`: (\d+) op", doubled,
               "the op count REPORT.md gives for F.linear(x, W, b) is 4, expected 2 (the ops it lists)"))
