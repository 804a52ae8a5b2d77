"""The deliverables' validators (`make check LAB=... DELIVERABLE=...`): the course's folder passes, and a
missing file, a missing section and a changed number each fail with a sentence naming them. The labs whose
folders other tests write already (they measure or compile) are checked there, on those folders."""

import pytest

from snippets.phase25.lab01 import deliverable as lab01
from snippets.week09 import deliverable as week09
from tests.deliverables import broken, doubled, validated
from workbench.__main__ import main
from workbench.deliverables import default_folder, validate, validators
from workbench.workspace import write_starters


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """The course's own folders, written once: lab 01's and week 9's."""
    root = tmp_path_factory.mktemp("course")
    return {"phase25/lab01": lab01.write_experiment(root / "25-autograd-by-hand"),
            "week09": week09.write_experiment(root / "week09-trace", device="cpu")}


def test_lab01(folders, tmp_path):
    validated("phase25/lab01", folders["phase25/lab01"], tmp_path,
              ("chain.md", "", None, "/chain.md is missing: the lab's deliverable has a file chain.md"),
              ("comparison.md", r"^## float32", lambda m: "## Float64", 'comparison.md has no section "## float32..."'),
              ("comparison.md", r"^\| cross_entropy \| float64 \| ([\d.e+-]+) \|", doubled,
               "comparison.md's dL/dx for cross_entropy in float64 (from comparison() of the course's "
               "snippets/phase25/lab01/compare.py) is "),
              ("manifest.json", r'"seed": (\d+)', lambda m: '"seed": "zero"', "manifest.json's seed is 'zero'"))


def test_week09(folders, tmp_path):
    validated("week09", folders["week09"], tmp_path,
              ("TRACE.md", "", None, "/TRACE.md is missing: the lab's deliverable has a file TRACE.md"),
              ("TRACE.md", r"^## torch\.matmul", lambda m: "## matmul", 'TRACE.md has no section "## torch.matmul..."'),
              ("TRACE.md", r"^aten\.mm\.default$", lambda m: "aten.bmm.default",
               "TRACE.md's dispatcher layer of torch.matmul does not reach aten.mm.default"),
              ("manifest.json", r'"timestamp": "[^"]*"', lambda m: '"timestamp": "today"', "manifest.json's timestamp is 'today'"))


def test_the_learners_own_functions_recompute_the_numbers(folders, tmp_path):
    """With a starter in mywork/, the numbers are recomputed with it, and the sentence says to finish it first."""
    from workbench.catalogue import TASKS

    write_starters([task for task in TASKS if task.name == "phase25/lab01#float64"], tmp_path)
    problem = validate("phase25/lab01", folders["phase25/lab01"], tmp_path)
    assert problem.startswith("recomputing the numbers with comparison() of your mywork/phase25/lab01/compare.py "
                              "raised NotImplementedError") and "make check LAB=phase25/lab01" in problem


def test_the_command_says_pass_or_fail(folders, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("workbench.deliverables.MYWORK", tmp_path)
    assert main(["week09", "--deliverable", str(folders["week09"])]) == 0
    assert capsys.readouterr().out == f"PASS deliverable {folders['week09']}\n"
    gone = broken(folders["week09"], tmp_path / "gone", "manifest.json")
    assert main(["week09", "--deliverable", str(gone)]) == 1
    assert capsys.readouterr().out.startswith(f"FAIL deliverable {gone}: {gone / 'manifest.json'} is missing")


def test_every_lab_with_a_deliverable_has_a_validator(root):
    labs = {str(path.parent.relative_to(root / "snippets")) for path in (root / "snippets").rglob("deliverable.py")}
    assert labs == set(validators())
    assert default_folder("phase25/lab02").parts[0] == "experiments"
