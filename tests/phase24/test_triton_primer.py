"""Phase 24 · 02, the Triton primer (interpreter mode): the vector add, which program writes which element,
the one-row softmax, the exercises' solutions, and the autotuned add's configurations."""

import xml.etree.ElementTree as ET

import pytest
import torch

from engine.run.runner import run_in_subprocess
from snippets.phase24.triton_primer import (autotune, coverage, exercises, refusals, row_softmax, specialization,
                                           vector_add)
from snippets.phase24.triton_softmax import kernels


@pytest.mark.parametrize("n, block", [(1, 16), (1000, 256), (1024, 256), (5000, 1024)])
def test_add_matches_torch_for_any_size(n, block):
    x, y = torch.randn(n), torch.randn(n)
    assert torch.equal(vector_add.add(x, y, block=block), x + y)
    assert vector_add.grid(n, block) == (-(-n // block),)


@pytest.mark.parametrize("n, block", [(1000, 256), (5000, 1024), (7, 8)])
def test_every_element_has_exactly_one_owner(n, block):
    owner = coverage.owners(n, block)
    assert (owner >= 0).all()
    spans = coverage.spans(owner, block)
    assert [s[0] for s in spans] == list(range(vector_add.grid(n, block)[0]))
    assert sum(last - first + 1 for _, first, last, _ in spans) == n
    assert sum(masked for *_, masked in spans) == vector_add.grid(n, block)[0] * block - n


def test_diagram_is_one_svg_with_its_table_as_title():
    root = ET.fromstring(coverage.svg(1000, 256, "en"))
    title = root.find("{http://www.w3.org/2000/svg}title").text
    assert title == coverage.table(1000, 256)
    assert root.get("role") == "img"


@pytest.mark.parametrize("shape", [(4, 600), (3, 1), (2, 37), (5, 1024)])
def test_row_softmax_matches_torch_and_theory_03(shape):
    x = 3 * torch.randn(shape)
    y = row_softmax.row_softmax(x)
    assert torch.allclose(y, torch.softmax(x, dim=-1), atol=1e-6)
    assert torch.allclose(y, kernels.softmax(x), atol=1e-7)


def test_exercise_solutions():
    behind = exercises.without_mask(1000, 256)
    assert (behind[:1000] == 2).all() and (behind[1000:1024] == 2).all() and (behind[1024:] == -1).all()
    assert "power of 2" in refusals.failure(lambda: vector_add.add(torch.ones(8), torch.ones(8), block=6))
    assert refusals.failure(lambda: None) == "no error"


@pytest.mark.parametrize("n, key", [(1, ("constexpr", 1)), (16, ("i32", "D")), (1000, ("i32", "")),
                                    (2**31 - 1, ("i32", "")), (2**31, ("i64", "D"))])
def test_launch_key_specialises_the_length(n, key):
    assert specialization.launch_key(n)[3] == key
    assert specialization.launch_key(n, block=128)[4] == ("constexpr", 128)


def test_lengths_share_a_few_compiled_kernels():
    assert specialization.distinct_keys(range(1, 5001), [256]) == 3
    assert specialization.distinct_keys(range(17, 5001, 16), [256]) == 1  # 17, 33, ...: never a multiple of 16


def test_the_compiler_refuses_what_the_interpreter_refuses(root):
    """In a fresh interpreter, as the build runs it (ISOLATE): this process has run interpreted kernels."""
    assert refusals.ISOLATE
    result = run_in_subprocess(root, refusals.__name__, "block_the_compiler_cannot_use", 120)
    compiled = [line.split(":", 1)[1].split() for line in result.output.splitlines() if line.startswith("compiled")]
    assert result.error is None and len(compiled) == 2
    assert compiled[0][:1] == compiled[1][:1] == ["CompilationError:"]


def test_exercise_solutions_print_what_the_page_explains(capsys):
    exercises.idle_lanes(600)
    exercises.grid_too_small()
    out = capsys.readouterr().out
    assert "424 masked lanes" in out and "'ROWS': 2" in out and out.rstrip().endswith("nan, nan]")


def test_autotune_wraps_the_same_kernel_with_four_configurations():
    assert autotune.tuned_add_kernel.fn is vector_add.add_kernel
    blocks = [c.kwargs["BLOCK"] for c in autotune.tuned_add_kernel.configs]
    assert len(blocks) == 4 and all(b & (b - 1) == 0 for b in blocks)
    assert autotune.DEVICES == ("cuda",)
