"""Phase 24 · 03: the Triton softmax kernels (interpreter mode), their launch configuration, the
benchmark's table and targets, the chart, and the MiniGPT with the kernel in its head."""

import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import torch

from engine import recordings
from engine.sources import SnippetError
from snippets.phase24.triton_softmax import benchmark, chart, correctness, kernels, minigpt_head
from snippets.phase24.triton_softmax.results import COPY, IMPLS, Timing, format_table, parse_table


def test_every_case_within_tolerance_for_three_dtypes():
    rows = correctness.report("cpu")
    assert {r[0] for r in rows} == {"float64", "float32", "float16"}
    assert len(rows) == 3 * len(correctness.cases("cpu", torch.float32))
    assert all(ok for *_, ok in rows)
    assert max(r[2] for r in rows if r[0] == "float32") < 1e-6


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("shape", [(3, 9000), (5, 2048), (7, 3), (2, 4, 600)])
def test_forward_and_backward_match_autograd(dtype, shape):
    x = (3 * torch.randn(shape)).to(dtype).requires_grad_()
    dy = torch.randn(shape).to(dtype)
    y_ref = torch.softmax(x.double(), dim=-1)
    (dx_ref,) = torch.autograd.grad(y_ref, x, dy.double())
    y = kernels.softmax(x.detach())
    dx = kernels.softmax_backward(y, dy)
    tolerance = {torch.float64: 1e-12, torch.float32: 1e-6, torch.float16: 2e-3, torch.bfloat16: 2e-2}[dtype]
    assert y.dtype == dx.dtype == dtype and y.shape == dx.shape == shape
    assert (y.double() - y_ref).abs().max() <= tolerance
    assert (dx.double() - dx_ref).abs().max() <= tolerance


def test_rows_of_minus_inf_give_nan_like_torch():
    x = torch.tensor([[0.0, float("-inf"), 1.0], [float("-inf")] * 3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the interpreter computes -inf - -inf with NumPy
        y = kernels.softmax(x)
    assert torch.allclose(y[0], torch.softmax(x[0], dim=-1), atol=1e-7) and y[0, 1] == 0
    assert y[1].isnan().all() and torch.softmax(x[1], dim=-1).isnan().all()


def test_output_is_contiguous_for_a_strided_input_and_empty_input_is_fine():
    x = torch.randn(600, 8).t()  # (8, 600), last dimension strided
    assert torch.allclose(kernels.softmax(x), torch.softmax(x, dim=-1), atol=1e-7)
    assert kernels.softmax(torch.empty(0, 600)).shape == (0, 600)


def test_limits_are_loud():
    with pytest.raises(ValueError, match="MAX_COLS"):
        kernels.softmax(torch.randn(1, kernels.MAX_COLS + 1))
    with pytest.raises(ValueError, match="last dimension"):
        kernels.softmax(torch.randn(3, 4), dim=0)


@pytest.mark.parametrize("n_cols", [1, 3, 128, 600, 1000, 2048, 4096, 8192, 32000, 32768])
def test_launch_configurations_cover_the_row(n_cols):
    forward, backward = kernels.launch_config(n_cols), kernels.backward_config(n_cols)
    block = forward["BLOCK_COLS"]
    assert block >= n_cols > block // 2 and block & (block - 1) == 0  # the next power of two
    assert forward["ROWS"] * block >= min(2048, block) and forward["num_warps"] in (2, 4, 8, 16)
    assert backward["CHUNK"] & (backward["CHUNK"] - 1) == 0 and backward["CHUNK"] <= block
    assert backward["ROWS"] * backward["CHUNK"] >= min(2048, block) and backward["num_warps"] in (8, 16, 32)


def synthetic_timings() -> list[Timing]:
    """Every shape and pass: copy 100 µs-scale times, ours 2% slower than the copy, torch 2x, compile 1.1x."""
    factors = dict(zip(IMPLS, (1.0, 2.0, 1.1, 1.02), strict=True))
    timings = []
    for rows, cols in benchmark.SHAPES:
        for pass_name, moved in benchmark.TENSORS_MOVED.items():
            n_bytes = moved * rows * cols * 4
            for impl, factor in factors.items():
                us = (3 + n_bytes / 4000e3) * factor
                timings.append(Timing(pass_name, rows, cols, impl, round(us, 1), n_bytes / us / 1e3))
    return timings


def test_table_round_trips_through_parse():
    timings = synthetic_timings()
    peak, parsed = parse_table(format_table(4000.0, timings) + "\n\nforward, from 64 MiB: ...")
    assert peak == 4000.0 and len(parsed) == len(timings)
    originals = {(t.pass_name, t.shape, t.impl): t for t in timings}
    for t in parsed:
        original = originals[t.pass_name, t.shape, t.impl]
        assert t.microseconds == pytest.approx(original.microseconds, abs=0.05)
        assert t.gbps == pytest.approx(original.gbps, abs=0.005 * 4000)


def test_target_report_says_met_and_missed():
    timings = synthetic_timings()
    report = benchmark.target_report(timings)
    assert len(report) == 4 and all("? met" in line for line in report)
    slow = [Timing(t.pass_name, t.rows, t.cols, t.impl, t.microseconds * (1.5 if t.impl == IMPLS[3] else 1), t.gbps)
            for t in timings]
    report = benchmark.target_report(slow)
    assert all("MISSED" in line for line in report)
    assert "4096 x 600" in report[1] and "2 x 600" not in report[1]  # only shapes from 4096 rows count


def test_svg_chart_draws_every_bar():
    peak, timings = parse_table(format_table(4000.0, synthetic_timings()))
    for pass_name in ("forward", "backward"):
        svg = ET.fromstring(chart.svg_chart(peak, timings, pass_name))
        rects = svg.findall("{http://www.w3.org/2000/svg}rect")
        assert len(rects) == len(IMPLS) + len(benchmark.SHAPES) * len(IMPLS)  # legend + bars
        titles = [r.find("{http://www.w3.org/2000/svg}title").text for r in rects[len(IMPLS):]]
        assert all(" µs, " in title for title in titles)


def test_chart_reads_the_benchmark_recording(root, monkeypatch):
    path = Path(benchmark.__file__)
    if recordings.load(root, path, "main") is None:
        with pytest.raises(SnippetError, match="make record"):
            chart.recorded_table()
        monkeypatch.setenv(recordings.PENDING_ENV, "1")
        assert chart.recorded_table() is None
    else:
        peak, timings = chart.recorded_table()
        assert peak > 0 and {t.shape for t in timings} == {f"{r} x {c}" for r, c in benchmark.SHAPES}
        assert {t.impl for t in timings} == set(IMPLS) and COPY in IMPLS


def test_minigpt_with_the_triton_head_matches_torch_softmax():
    result = minigpt_head.compare("cpu")
    assert result["shape"] == (8, 600) and result["every_position_shape"] == (8, 32, 600)
    assert result["max_abs_difference"] < 1e-6 and result["every_position_difference"] < 1e-6
    assert result["same_argmax"] == 8
