"""Shared by the tests of each lab's deliverable: the course's folder passes the lab's validator, and a copy
with one thing broken fails it with the sentence that names the thing."""

import re
import shutil
from pathlib import Path

from workbench.deliverables import validate


def broken(folder: Path, copy: Path, name: str, pattern: str = "", replace=None) -> Path:
    """A copy of `folder` with file `name` removed (no pattern), or with the first match of `pattern`
    in it replaced by `replace(match)`."""
    shutil.copytree(folder, copy)
    if not pattern:
        (copy / name).unlink()
        return copy
    text = (copy / name).read_text(encoding="utf-8")
    changed = re.sub(pattern, replace, text, count=1, flags=re.MULTILINE)
    assert changed != text, f"{pattern!r} is not in {name}"
    (copy / name).write_text(changed, encoding="utf-8")
    return copy


def doubled(match: re.Match) -> str:
    """A number (the match's first group) written twice as large, in the same place."""
    start, end = match.start(1) - match.start(), match.end(1) - match.start()
    return match.group(0)[:start] + f"{2 * float(match.group(1)):g}" + match.group(0)[end:]


def validated(lab: str, folder: Path, tmp_path: Path, *breaks: tuple) -> None:
    """`folder` passes; each (name, pattern, replace, message) of `breaks` fails with `message` in its sentence."""
    mywork = tmp_path / "no-mywork"  # the course's functions recompute the numbers, whatever mywork/ holds
    assert validate(lab, folder, mywork) is None, validate(lab, folder, mywork)
    for i, (name, pattern, replace, message) in enumerate(breaks):
        problem = validate(lab, broken(folder, tmp_path / f"broken-{i}", name, pattern, replace), mywork)
        assert problem is not None and message in problem, (name, pattern, problem)
