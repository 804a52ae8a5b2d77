"""Week 9's view diagram, its exercises, and the page's readability and reading order, in both languages."""

import re
from pathlib import Path

import pytest

from snippets.week09 import exercises, view_diagram

PAGES = sorted((Path(__file__).resolve().parents[2] / "docs" / "week-09").glob("index*.md"))


def test_diagram_cells_come_from_real_addresses():
    views = view_diagram.views()
    assert list(view_diagram.cells_reached(views["x[1:, ::2]"]).values()) == [4, 6, 8, 10]
    transposed = view_diagram.cells_reached(views["x.t()"])
    assert sorted(transposed.values()) == list(range(12)) and transposed[(0, 1)] == 4 and transposed[(1, 0)] == 1
    for t in views.values():  # the address agrees with offset + sum(index * stride)
        assert all(cell == t.storage_offset() + sum(i * s for i, s in zip(index, t.stride()))
                   for index, cell in view_diagram.cells_reached(t).items())
    assert view_diagram.storage_values(views["x.t()"]) == list(range(12))


def test_exercise_answers():
    metadata = exercises.view_metadata()
    assert metadata["x.t()"] == "sizes (4, 3), strides (1, 4), offset 0, contiguous False"
    assert metadata["x[1]"].endswith("offset 4, contiguous True")
    copies = exercises.which_copy()
    assert [name for name, shares in copies.items() if not shares] == [
        "x.t().reshape(12)", "x.t().flatten()", "x.t().contiguous()"]
    zero = exercises.stride_zero()
    assert "strides (0, 1)" in zero["row.expand(4, 3)"] and zero["grid.add_(1)"].startswith("RuntimeError")
    counts = exercises.overload_calls()
    assert {name: count for name, (count, _) in counts.items()} == {
        "a * b": 1, "a * 2": 1, "torch.mul(a, b)": 1, "torch.mul(a, b, out=out)": 0, "a.clone().mul_(b)": 0}
    assert all(equal for _, equal in counts.values())


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_opens_with_prerequisites_and_closes_with_previous_and_next(page):
    text = page.read_text(encoding="utf-8")
    opening = " ".join(text.split("\n## ", 1)[0].split())
    assert re.search(r"\*(Assumes|Se da por sabido):\*", opening) and re.search(r"\*(You will be able to|Al terminar sabrás):\*", opening)
    closing = text.rsplit("{ #next }", 1)[1]
    assert "(../phase-25/lab/03-running-torchrun.md)" in closing and "(../glossary.md)" in closing
    assert closing.index("03-running-torchrun.md") < closing.index("glossary.md")
    assert text.count('??? success "') == 8 and text.count('snippet("week09/exercises.py"') == 4  # and the lab's 4 tasks
