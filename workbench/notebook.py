"""A lab's workspace notebook: per task, its statement, a starter cell, a collapsed hint and a check cell
that grades the cell above; its companion holds the course's solutions in the starters' place."""

from __future__ import annotations

import ast
import json

from engine import strip_claims
from workbench.pages import hint_text, page_title, task_text, task_title
from workbench.tasks import SNIPPETS, Task
from workbench.workspace import starters

SETUP = """\
# Run first: the course's repository on the path and its numerical environment, before torch loads.
import os, pathlib, sys
root = pathlib.Path.cwd()
while not (root / "workbench").is_dir() and root != root.parent:  # from mywork/ up to the repository
    root = root.parent
if not (root / "workbench").is_dir():
    raise RuntimeError("Open this notebook inside your clone of the course's repository (in mywork/, say), "
                       "after make setup, with the kernel of its .venv.")
sys.path.insert(0, str(root))
os.environ.setdefault("TRITON_INTERPRET", "1")
from engine import pin_numerics
pin_numerics()
from workbench.tasks import check_here"""


def _cell(kind: str, source: str) -> dict:
    cell = {"cell_type": kind, "metadata": {}, "source": source}
    return cell | ({"execution_count": None, "outputs": []} if kind == "code" else {})


def _without_main_guard(source: str) -> str:
    """The module without its `if __name__ == "__main__":` block (in a notebook, __name__ is __main__)."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    for node in reversed(tree.body):
        if isinstance(node, ast.If) and "__name__" in ast.unparse(node.test):
            del lines[node.lineno - 1:node.end_lineno]
    return "".join(lines).rstrip() + "\n"


def solution_source(task: Task) -> str:
    """The course's module as a cell: claims left out, renamed as the learner's starter is."""
    source = (SNIPPETS / task.module).read_text()
    source = strip_claims(source, ast.parse(source))
    for old, new in task.renames:
        source = source.replace(old, new)
    return _without_main_guard(source)


WORDS = {  # the notebook's own sentences; the tasks' statements and hints come from the page in its language
    "en": {"title": "your workspace", "solutions": "solutions", "hint": "Hint",
           "how": "Run the set-up cell, then for each task fill in the cell under its statement and run the check "
                  "below it."},
    "es": {"title": "tu espacio de trabajo", "solutions": "soluciones", "hint": "Pista",
           "how": "Ejecuta la celda de preparación y, en cada tarea, completa la celda que hay bajo su enunciado y "
                  "ejecuta la comprobación de debajo."},
}


def workspace(tasks: list[Task], solutions: bool = False, lang: str = "en") -> dict:
    """The notebook of `tasks` (one lab's): starters to fill in, or the solutions; its statements and hints
    in `lang`, read from the page's twin in that language."""
    words = WORDS[lang]
    title = f"{page_title(tasks[0].page, lang)}: {words['solutions' if solutions else 'title']}"
    cells = [_cell("markdown", f"# {title}\n\n{words['how']}"), _cell("code", SETUP)]
    for task in tasks:
        code = solution_source(task) if solutions else _without_main_guard(starters([task])[task.module])
        text = task_text(task.page, task.anchor, task.number, lang, code=True)
        hint = hint_text(task.page, task.anchor, task.number, lang, code=True)
        title = task_title(task.page, task.anchor, task.number, lang)
        cells += [_cell("markdown", f"## {title}\n\n{text}\n\n(`{task.name}`: `docs/{task.page}#{task.anchor}`)"),
                  _cell("code", code),
                  _cell("markdown", f"<details><summary>{words['hint']}</summary>\n\n{hint}\n\n</details>"),
                  _cell("code", f'check_here("{task.name}", globals())')]
    for i, cell in enumerate(cells):
        cell["id"] = f"cell-{i}"
    return {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                        "language": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def to_json(notebook: dict) -> str:
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
