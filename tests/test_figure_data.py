"""The data the course's figures draw, from the runs they illustrate (the drawings and their words are checked
by each snippet's claims at build time, and the built pages by tests/website/test_figures.py)."""

from snippets.home import stack_map
from snippets.phase24.triton_softmax import chunk_walk
from snippets.phase25.lab02 import opaque_or_inlined
from snippets.phase25.theory01 import blas_letters, table_grid
from snippets.phase25.theory02 import ready_queue


def test_the_ready_queue_replays_the_real_backward():
    steps = ready_queue.frames()
    assert [s["runs"] for s in steps][:3] == ["NllLossBackward0", "LogSoftmaxBackward0", "AddmmBackward0"]
    assert steps[2]["queue"] == ["AccumulateGrad(b)", "AccumulateGrad(x)", "TBackward0"]
    assert set(steps[2]["made"]) == {"AccumulateGrad(b)", "AccumulateGrad(x)", "TBackward0"}
    assert steps[-1]["queue"] == [] and len(steps) == 7


def test_the_grid_reads_the_real_tables():
    data = table_grid.grid()
    assert data["keys"] == ["AutogradCPU", "ADInplaceOrView", "BackendSelect", "CPU"]
    assert data["cells"]["aten::t"]["ADInplaceOrView"] == "K" and data["cells"]["aten::addmm"]["ADInplaceOrView"] == "↓"
    assert data["cells"]["aten::linear"]["AutogradCPU"] == "M" and data["visited"][-1] == "CPU"


def test_blas_reads_the_row_major_bytes_column_major():
    data = blas_letters.sgemm()
    assert data["call"] == "SGEMM(T,N,4,2,3,...)" and data["letters"] == {"A": "T", "B": "N"}
    w = data["operands"]["A"]
    assert w["read"] == [list(row) for row in zip(*w["stored"])]  # W's bytes read column-major: W transposed
    x = data["operands"]["B"]
    assert x["read"] == [list(row) for row in zip(*x["stored"])]


def test_the_chunk_walk_logs_every_access_of_the_real_kernel():
    wide = chunk_walk.walk(32000)
    assert wide["config"]["KEEP_LAST"] and [s[0] for s in wide["steps"]] == ["load", "load", "store", "load", "store"]
    assert wide["steps"][0][4] == "evict_last" and wide["steps"][3][2:4] == (0, 16383)


def test_the_custom_op_is_opaque_and_the_triton_op_inlined_in_the_recordings():
    calls = opaque_or_inlined.forward_calls()
    assert calls["custom_op"][-1] == "torch.ops.nmb.softmax.default" and calls["triton_op"][-1].endswith(".run")


def test_the_stack_map_pins_every_page_once():
    pages = [page for key in stack_map.LAYERS + stack_map.BESIDE for page, *_ in stack_map.PAGES[key]]
    assert len(pages) == len(set(pages))
