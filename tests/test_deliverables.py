"""The deliverables' validators (`make check LAB=... DELIVERABLE=...`) on week 9's folder, the one the course
writes in a tenth of a second: the course's folder passes, a missing file, a missing section and a changed
result each fail with a sentence naming them, and the learner's own code in mywork/ recomputes the results.
Each other lab's deliverable test checks its validator on the folder it writes already."""

import pytest

from snippets.week09 import deliverable
from tests.deliverables import broken, validated
from workbench.__main__ import main
from workbench.deliverables import default_folder, validate, validators
from workbench.tasks import SNIPPETS


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return deliverable.write_experiment(tmp_path_factory.mktemp("course") / "week09-trace", device="cpu")


def test_week09(folder, tmp_path):
    validated("week09", folder, tmp_path,
              ("TRACE.md", "", None, "/TRACE.md is missing: the lab's deliverable has a file TRACE.md"),
              ("TRACE.md", r"^## torch\.matmul", lambda m: "## matmul",
               'TRACE.md has no section "## torch.matmul..."'),
              ("TRACE.md", r"^aten\.mm\.default$", lambda m: "aten.bmm.default",
               "TRACE.md's dispatcher layer of torch.matmul does not reach aten.mm.default"),
              ("manifest.json", r'"timestamp": "[^"]*"', lambda m: '"timestamp": "today"',
               "manifest.json's timestamp is 'today'"))


def test_the_learners_own_code_recomputes_the_results(folder, tmp_path):
    """A function of the learner's in mywork/ that finds another op than the folder shows: the sentence
    names their file."""
    mine = tmp_path / "week09" / "layers.py"
    mine.parent.mkdir()
    mine.write_text((SNIPPETS / "week09/layers.py").read_text().replace("return a + b", "return a - b"))
    problem = validate("week09", folder, tmp_path)
    assert problem.startswith("TRACE.md's dispatcher layer of a + b does not show 'aten.sub.Tensor', which "
                              "layers() of your mywork/week09/layers.py gives here"), problem


def test_the_command_says_pass_or_fail(folder, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("workbench.deliverables.MYWORK", tmp_path)
    assert main(["week09", "--deliverable", str(folder)]) == 0
    assert capsys.readouterr().out == f"PASS deliverable {folder}\n"
    gone = broken(folder, tmp_path / "gone", "manifest.json")
    assert main(["week09", "--deliverable", str(gone)]) == 1
    assert capsys.readouterr().out.startswith(f"FAIL deliverable {gone}: {gone / 'manifest.json'} is missing")


def test_every_lab_with_a_deliverable_has_a_validator(root):
    labs = {str(path.parent.relative_to(root / "snippets")) for path in (root / "snippets").rglob("deliverable.py")}
    assert labs == set(validators())
    assert default_folder("phase25/lab02").parts[0] == "experiments"
