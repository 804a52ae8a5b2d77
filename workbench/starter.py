"""A starter module: the course's reference module with the task's functions emptied.

The learner's file keeps the reference's imports, constants, helpers and `main()`; each function the
learner writes keeps its signature and docstring, and its body raises NotImplementedError with its task.
The page's claims are left out (they are the course's checks, not code to read).
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from engine.claims import strip_claims


def _function(tree: ast.Module, dotted: str) -> ast.FunctionDef:
    """The top-level function `name`, or the method `Class.name`."""
    body, node = tree.body, None
    for part in dotted.split("."):
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == part), None)
        if node is None:
            raise LookupError(f"no {dotted} in the reference module")
        body = node.body
    return node


def _body_start(node: ast.FunctionDef) -> int:
    """The 0-based line where the body starts after the docstring (the docstring stays)."""
    first = node.body[0]
    has_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    return first.end_lineno if has_doc else first.lineno - 1


def starter_source(path: Path, tasks: dict[str, str], header: str = "") -> str:
    """The text of `path` with each function named in `tasks` (name -> task) raising its task, and
    `header` as comment lines after the module's docstring."""
    text = path.read_text()
    text = strip_claims(text, ast.parse(text))
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    after_doc = tree.body[0].end_lineno if ast.get_docstring(tree) is not None else 0
    nodes = sorted(((_function(tree, name), task) for name, task in tasks.items()),
                   key=lambda pair: pair[0].lineno, reverse=True)
    for node, task in nodes:
        lines[_body_start(node):node.end_lineno] = _raise(task, node.body[0].col_offset)
    comment = ["\n"] + [f"# {line}\n".replace("# \n", "#\n") for line in header.splitlines()] if header else []
    lines[after_doc:after_doc] = comment
    return "".join(lines)


def _raise(task: str, indent: int) -> list[str]:
    """`raise NotImplementedError("...")` with the task wrapped to fit a screen."""
    pad = " " * indent
    parts = textwrap.wrap(task, 96 - indent, drop_whitespace=False) or [""]
    if len(parts) == 1:
        return [f"{pad}raise NotImplementedError({task!r})\n"]
    return [f"{pad}raise NotImplementedError(\n", *(f"{pad}    {part!r}\n" for part in parts), f"{pad})\n"]
