"""The one way a page includes a snippet, and the parser every check shares.

A page writes:

    ```python exec="1"
    print(snippet("phase25/lab00/part_a_baseline.py", part=None, call="main", show="both", raw=False))
    ```
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

FENCE = re.compile(r"^(?P<indent>[ \t]*)```python exec=\"1\"[ \t]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
                   re.MULTILINE | re.DOTALL)
ANY_EXEC_FENCE = re.compile(r"^[ \t]*`{3,}\s*\w+[^\n]*\bexec=", re.MULTILINE)
SHOW = ("both", "code", "output")


@dataclass(frozen=True)
class Include:
    path: str
    part: str | None = None
    call: str | None = "main"
    show: str = "both"
    raw: bool = False  # insert the output as Markdown/HTML (an SVG chart, a diagram) instead of text


class IncludeError(ValueError):
    """An exec fence that is not a single well-formed snippet() call."""


def parse_body(body: str) -> Include:
    """The Include named by one fence body: exactly `print(snippet(...))` with literal arguments."""
    try:
        tree = ast.parse(body.strip())
    except SyntaxError as error:
        raise IncludeError(f"not Python: {body.strip()!r}") from error
    statement = tree.body[0] if len(tree.body) == 1 else None
    outer = getattr(statement, "value", None)
    inner = outer.args[0] if isinstance(outer, ast.Call) and len(outer.args) == 1 else None
    if not (isinstance(outer, ast.Call) and getattr(outer.func, "id", "") == "print"
            and isinstance(inner, ast.Call) and getattr(inner.func, "id", "") == "snippet"):
        raise IncludeError(f"an exec block must hold exactly print(snippet(...)), found {body.strip()!r}")
    try:
        args = [ast.literal_eval(a) for a in inner.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in inner.keywords}
        include = Include(*args, **kwargs)
    except (ValueError, TypeError) as error:
        raise IncludeError(f"bad snippet() arguments in {body.strip()!r}: {error}") from error
    if include.show not in SHOW:
        raise IncludeError(f"show must be one of {SHOW}, not {include.show!r}")
    return include


def page_includes(markdown: str) -> list[Include]:
    """Every snippet include of a page, in order; IncludeError for any other exec fence."""
    fences = list(FENCE.finditer(markdown))
    if len(ANY_EXEC_FENCE.findall(markdown)) != len(fences):
        raise IncludeError('every exec fence must open exactly as ```python exec="1"')
    return [parse_body(m.group("body")) for m in fences]
