"""Lab 01's acceptance: hand gradients match .backward() to 1e-7 in float64, the chain, the deliverable."""

import json
from pathlib import Path

import torch

from engine.source.sources import source_hash
from snippets.phase25.lab01 import deliverable, exercises
from snippets.phase25.lab01.chain import cross_entropy_graph, walk_by_hand
from snippets.phase25.lab01.compare import TOLERANCE, comparison, max_errors
from snippets.phase25.lab01.float32_error import spacing, sweep
from snippets.phase25.lab01.kernel_levels import sweep_at
from snippets.phase25.lab01.hand_gradients import LOSSES
from snippets.phase25.lab01.minigpt_head import head_errors, sgd_step
from snippets.phase25.theory02.graph_walk import label, walk
from tests.deliverables import doubled, validated


def test_float64_matches_backward_to_1e_7():
    for loss in LOSSES:
        errors = max_errors(loss, torch.float64)
        assert set(errors) == {"dL/dx", "dL/dW", "dL/db"}
        assert max(errors.values()) <= TOLERANCE
        assert max(errors.values()) <= 1e-15  # a few float64 ulps, far inside the target


def test_sum_of_squares_is_bitwise_in_float32():
    assert max(max_errors("sum_of_squares", torch.float32).values()) == 0.0


def test_float32_cross_entropy_errors_are_a_few_ulps_and_can_exceed_1e_7():
    rows = sweep()
    for row in rows:
        assert row["error"] <= 8 * spacing(row["value"])  # a few rounding steps of the value it lands on
        assert row["all_close"]  # torch.testing's float32 tolerances hold
    assert any(row["error"] > TOLERANCE for row in rows)  # 1e-7 absolute is not a float32 target


def test_a_fresh_process_at_the_pinned_level_draws_the_pinned_table():
    """The AVX2 column of the kernel-levels table is the sweep every other CPU output is built under;
    the default level draws another table from the same code."""
    assert sweep_at("avx2")["rows"] == sweep()
    assert sweep_at("default")["rows"] != sweep()


def test_comparison_table_rows():
    rows = comparison()
    assert [(r["loss"], r["dtype"]) for r in rows] == [(loss, d) for loss in LOSSES for d in ("float64", "float32")]
    assert all(r["within 1e-7"] for r in rows if r["dtype"] == "float64")


def test_chain_node_names():
    loss, _, _, leaves = cross_entropy_graph()
    names = [label(node, leaves) for node in walk(loss.grad_fn)[0]]
    assert names == ["NllLossBackward0", "LogSoftmaxBackward0", "AddmmBackward0", "AccumulateGrad(b)",
                     "AccumulateGrad(x)", "TBackward0", "AccumulateGrad(W)"]


def test_each_node_run_by_hand_matches_its_formula():
    steps = walk_by_hand()
    assert [s["node"] for s in steps] == ["NllLossBackward0", "LogSoftmaxBackward0", "AddmmBackward0", "engine: sum_to",
                                          "AccumulateGrad(b)", "AccumulateGrad(x)", "TBackward0", "AccumulateGrad(W)"]
    assert all(s["max_error"] <= 1e-15 for s in steps)
    addmm = steps[2]
    assert addmm["returned"] == [(2, 600), (2, 64), (64, 600)]  # the bias gradient is not yet reduced


def test_hand_gradients_on_the_minigpt_head():
    errors = head_errors()
    assert max(errors["float64"].values()) <= TOLERANCE
    step = sgd_step()
    assert step["loss after the hand step"] < step["loss before"]
    assert step["max abs(W_hand - W_auto)"] <= 1e-6 and step["max abs(b_hand - b_auto)"] <= 1e-6
    assert 0 < step["the same, in ulps of W"] <= 4  # a rounding difference, not a wrong gradient


def test_deliverable_meets_the_acceptance_list(tmp_path, root):
    out = deliverable.write_experiment(tmp_path / "25-autograd-by-hand")
    assert sorted(p.name for p in out.iterdir()) == ["chain.md", "comparison.md", "derivation.md", "graph.svg",
                                                    "manifest.json", "minigpt_head.md"]
    checks = deliverable.check_acceptance(out)
    assert checks and all(checks.values()), checks
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["seed"] == 0 and manifest["torch"] == torch.__version__
    assert manifest["code_hash"] == source_hash(root, Path(deliverable.__file__))  # theory02's modules included
    validated("phase25/lab01", out, tmp_path,
              ("chain.md", "", None, "/chain.md is missing: the lab's deliverable has a file chain.md"),
              ("comparison.md", r"^## float32", lambda m: "## Float64", 'comparison.md has no section "## float32..."'),
              ("comparison.md", r"^\| cross_entropy \| float64 \| ([\d.e+-]+) \|", doubled,
               "comparison.md's dL/dx for cross_entropy in float64 (from comparison() of the course's "
               "snippets/phase25/lab01/compare.py) is "),
              ("manifest.json", r'"seed": (\d+)', lambda m: '"seed": "zero"', "manifest.json's seed is 'zero'"))


def test_exercises():
    sums = exercises.row_sums_of_G()
    assert all(abs(v) < 1e-15 for v in sums["row sums of G"])
    assert exercises.reduction_ratio() == {"dL/dx": 0.0, "dL/dW": 0.0, "dL/db": 0.0}
    twice = exercises.double_backward()
    assert twice["gradcheck"] and twice["gradgradcheck"]
    assert max(v for k, v in twice.items() if k.startswith("max")) < 1e-12
    assert max(exercises.mse_against_backward().values()) < 1e-15
