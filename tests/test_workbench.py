"""The learner's workbench: every check fails on its starter, with its task, and passes on the course's
own code; a wrong answer is named in a sentence; the starters keep the reference's shape, not its code."""

import ast
import re
from pathlib import Path

import pytest

from workbench.catalogue import TASKS
from workbench.starter import starter_source
from workbench.tasks import SNIPPETS, check
from workbench.workspace import load, starters, write_starters


@pytest.fixture(scope="module")
def starter_modules(tmp_path_factory):
    root = tmp_path_factory.mktemp("mywork")
    write_starters(list(TASKS), root)
    return {task.name: load(root / task.module) for task in TASKS}


def test_count(capsys):
    """Prints how many code tasks have a starter and a check."""
    labs = sorted({task.lab for task in TASKS})
    with capsys.disabled():
        print(f"\nworkbench: {len(TASKS)} code tasks in {len(labs)} labs and pages, each checked on its "
              "starter and on the reference")
    assert len({task.name for task in TASKS}) == len(TASKS)


@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.name)
def test_check_of_a_starter_file_names_a_function_to_write(task, starter_modules):
    """The starter as `make check` loads it from mywork/: its check names one of the task's functions. That
    every check passes on the reference, and fails on the starter in a notebook, the workspace notebook's
    two runs show (test_workspace_notebook_runs_in_a_kernel): the references run once, there."""
    problem = check(task, starter_modules[task.name])
    assert problem is not None and "is not written yet. Its task: " in problem, problem
    assert problem.split("() is not written yet")[0].split(".")[-1] in {w.split(".")[-1] for w in task.writes}


@pytest.mark.parametrize("module", sorted(starters(list(TASKS))))
def test_starter_keeps_signatures_and_drops_the_code(module):
    source = starters([task for task in TASKS if task.module == module])[module]
    tree = ast.parse(source)
    assert "claim_" not in source and "Check your code: python -m workbench" in source
    written = {name.split(".")[-1] for task in TASKS if task.module == module for name in task.writes}
    bodies = {node.name: node.body for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    for name in written:
        statements = [s for s in bodies[name] if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        assert len(statements) == 1 and isinstance(statements[0], ast.Raise), name


def graded_with(tmp_path, name: str, old: str, new: str) -> str | None:
    """The check of task `name` on the course's module with `old` replaced by `new`: a learner's mistake."""
    task = next(task for task in TASKS if task.name == name)
    learner = tmp_path / Path(task.module).name
    learner.write_text((SNIPPETS / task.module).read_text().replace(old, new))
    return check(task, load(learner))


def test_a_wrong_gradient_is_named(tmp_path):
    """A bias gradient summed over the wrong axis: the check names the gradient, both shapes, what to look at."""
    problem = graded_with(tmp_path, "phase25/lab01#code", "grad_y.sum(0)", "grad_y.sum(1)")
    assert problem.startswith("dL/db from linear_backward(") and "has shape (2,), expected (600,)" in problem


def test_a_wrong_element_is_located(tmp_path):
    """G without the mean's 1/N: the check gives the element, both values and how far apart they are."""
    problem = graded_with(tmp_path, "phase25/lab01#code", ") / logits.shape[0]", ")")
    assert problem.startswith("cross_entropy_grad(<float64 (2, 600)>, <int64 (2,)>): element (")
    assert "off by 5.00e-01, the tolerance is 1.0e-07); 1200 of 1200 elements are off" in problem


def test_a_rank_function_is_graded_on_a_fake_process_group(tmp_path):
    """FSDP2 left resharding after forward: the check, on two faked ranks, names the page's sentence."""
    problem = graded_with(tmp_path, "phase25/distributed#exercises-2",
                          "reshard_after_forward=reshard_after_forward", "")
    assert problem.startswith('the page says "The two backward all-gathers disappear')
    assert "what your no_reshard() on a fake process group of 2 ranks prints does not bear it out" in problem


def test_a_miscounted_flop_is_named(tmp_path):
    """A dispatch mode that forgets the multiply-add's factor 2: the check names the op and both counts."""
    problem = graded_with(tmp_path, "phase25/lab00#exercise-1", "+ 2 * a.shape[0]", "+ a.shape[0]")
    assert problem.startswith("flops_of_linear()['aten.addmm.default'] is 76800, expected 153600")


def test_a_call_only_variant_that_goes_through_dynamo_is_named(tmp_path):
    """Lab 03 part E's "generated call() only" timed through torch.compile's wrapper: the profile shows Dynamo."""
    problem = graded_with(tmp_path, "phase25/lab03#part-e", "lambda: generated.call(list(args))", "lambda: compiled(x)")
    assert problem.startswith("variants(model, x, \"cpu\") profiled['generated call() only']['through Dynamo'] is True")


def test_an_error_in_a_printing_call_is_one_sentence(tmp_path):
    """gradcheck in float32: the printing call raises, and the check says which call and the error's first line."""
    problem = graded_with(tmp_path, "phase25/lab02#gradcheck", "dtype=torch.float64", "dtype=torch.float32")
    assert problem.startswith("main() raised GradcheckError: Jacobian mismatch for output 0 with respect to input 0.")
    assert "Hint: " in problem and "\n" not in problem


def test_a_notebook_namespace_is_graded():
    """A notebook's globals() are graded as a module is."""
    task = next(task for task in TASKS if task.name == "phase25/lab00#part-a")
    assert check(task, dict(vars(task.reference))) is None
    assert "is not written yet" not in check(task, {"baseline": lambda: ((2, 600), "MmBackward0")})


def test_starter_source_raises_the_task():
    path = SNIPPETS / "phase25/lab00/part_a_baseline.py"
    source = starter_source(path, {"baseline": "Call F.linear."}, "Task: the baseline.")
    assert "raise NotImplementedError('Call F.linear.')" in source and "# Task: the baseline." in source


PAGES = Path(__file__).resolve().parent.parent / "docs"
MARK = re.compile(r'<span class="nmb-difficulty" role="img" aria-label="(?:Difficulty|Dificultad) (\d) (?:of|de) 3" '
                  r'title="(?:Difficulty|Dificultad) \1 (?:of|de) 3">(●+○*)</span>')


def _english_pages():
    return sorted(p for p in PAGES.rglob("*.md") if not p.name.endswith(".es.md"))


@pytest.mark.parametrize("page", _english_pages(), ids=lambda p: str(p.relative_to(PAGES)))
def test_every_task_and_exercise_has_one_difficulty_mark_in_both_languages(page):
    levels = {}
    for path in (page, page.with_suffix(".es.md")):
        text = path.read_text()
        marks = MARK.findall(text)
        assert all(int(level) == dots.count("●") and len(dots) == 3 for level, dots in marks), path
        exercises = text[text.find("{ #exercises }"):] if "{ #exercises }" in text else ""
        tasks = len(re.findall(r"^\*\*(Task|Tarea)\.\*\*", text, re.M))
        numbered = len(re.findall(r"^(\*\*\d+\. |\d+\. \*\*|### (Exercise|Ejercicio) )", exercises, re.M))
        assert len(marks) == tasks + numbered, f"{path}: {len(marks)} marks for {tasks + numbered} tasks and exercises"
        levels[path.suffixes[0]] = [level for level, _ in marks]
    assert len(set(map(tuple, levels.values()))) == 1, f"{page}: the two languages mark differently"


@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.name)
def test_every_checked_task_has_a_hint_in_both_languages(task):
    assert task.look, f"{task.name}: no '??? tip \"Hint\"' before its solution"
    english = (PAGES / task.page).read_text().count('??? tip "Hint"')
    assert (PAGES / task.page.replace(".md", ".es.md")).read_text().count('??? tip "Pista"') == english


def test_every_lab_page_names_its_workbench_lab_and_gpu_parts():
    labs = {task.lab for task in TASKS}
    for page in sorted(PAGES.rglob("lab/*.md")):
        front = page.read_text().split("---\n")[1]
        assert re.search(r"^lab: (\S+)$", front, re.M).group(1) in labs, page
        assert re.search(r'^gpu: ".+"$', front, re.M), page


@pytest.mark.parametrize("solutions", [False, True], ids=["starters", "solutions"])
def test_workspace_notebook_runs_in_a_kernel(solutions):
    """Every task's cells in one notebook (what each lab's notebook holds, for every lab at once: two
    kernels instead of one per lab), run in a Jupyter kernel from the venv: with the starters every check
    cell fails with its message; with the solutions every check passes."""
    import nbformat
    from nbclient import NotebookClient

    from workbench.notebook import to_json, workspace

    nb = nbformat.reads(to_json(workspace(list(TASKS), solutions)), as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(PAGES.parent / "workbench")}}).execute()
    checks = [cell for cell in nb.cells if cell.cell_type == "code" and cell.source.startswith("check_here(")]
    assert len(checks) == len(TASKS)
    for task, cell in zip(TASKS, checks):
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if solutions:
            assert not errors and f"PASS {task.name}" in "".join(o.get("text", "") for o in cell.outputs), \
                (task.name, [e.evalue for e in errors])
        else:
            assert errors and errors[0].ename == "AssertionError" and "is not written yet" in errors[0].evalue, \
                (task.name, cell.outputs)
            unwritten = errors[0].evalue.split("() is not written yet")[0].split(".")[-1]
            assert unwritten in {name.split(".")[-1] for name in task.writes}, (task.name, errors[0].evalue)


def test_a_task_is_titled_by_its_page_and_the_listing_shows_it():
    """A task's title is its section's heading (a subsection's after its parent's) or its exercise's number
    and title, in the page's language; `make check` lists every task with it."""
    from workbench.__main__ import listing
    from workbench.catalogue import labs
    from workbench.pages import task_title

    page = "phase-25/lab/03-compile-and-inductor.md"
    assert task_title(page, "part-d-gpu") == "Part D — Annotate the kernel: On a GPU"
    assert task_title(page, "part-d-gpu", lang="es") == "Parte D — Anota el kernel: En GPU"
    assert task_title(page, "exercises", 4) == "Exercises: 4. Change and run."
    shown = listing(labs())
    assert all(f"{task.name}  " in shown and task_title(task.page, task.anchor, task.number) in shown for task in TASKS)
