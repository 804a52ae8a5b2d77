"""Python files parsed once per process, until they change."""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=4096)
def _parse(path: Path, mtime_ns: int) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def parse(path: Path) -> ast.Module:
    """The parsed module (SyntaxError when it does not parse)."""
    return _parse(path, path.stat().st_mtime_ns)
