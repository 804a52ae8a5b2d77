"""The learner's files: `mywork/<lab>/<module>.py`, a starter written where none is yet."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

from workbench.starter import starter_source
from workbench.tasks import SNIPPETS, Task

ROOT = Path(__file__).resolve().parent.parent
MYWORK = ROOT / "mywork"


def first_sentence(text: str) -> str:
    return text.split(". ")[0].rstrip(".") + "."


def starters(tasks: list[Task]) -> dict[str, str]:
    """module path under snippets/ -> the learner's starter for the tasks set on it."""
    by_module: dict[str, list[Task]] = {}
    for task in tasks:
        by_module.setdefault(task.module, []).append(task)
    sources = {}
    for module, on_it in by_module.items():
        lines = []
        for task in on_it:
            lines += [f"Task {task.name} (docs/{task.page}):",
                      *textwrap.wrap(task.text, 96, initial_indent="  ", subsequent_indent="  ")]
        lines.append(f"Check your code: python -m workbench {on_it[0].lab}")
        raises = {name: first_sentence(task.text) for task in on_it for name in task.writes}
        source = starter_source(SNIPPETS / module, raises, "\n".join(lines))
        for old, new in (pair for task in on_it for pair in task.renames):
            source = source.replace(old, new)
        sources[module] = source
    return sources


def write_starters(tasks: list[Task], root: Path = MYWORK) -> list[Path]:
    """Write each starter the learner does not have yet; the paths written."""
    written = []
    for module, source in starters(tasks).items():
        path = root / module
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(source)
            written.append(path)
    return written


def load(path: Path):
    """The learner's file as a module of its own (its name says whose it is)."""
    name = "mywork_" + "_".join(path.with_suffix("").parts[-3:])
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
