"""Folders of cache entries, one file an entry (`.cache/snippets/`, `.cache/notebook-html/`): after a full
build, only the entries that build used are kept, so that the cache does not grow with every change."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


def prune(folder: Path, used: Iterable[str]) -> list[str]:
    """Remove the entries (`*.json`) of `folder` whose names are not in `used`; the names removed."""
    keep = set(used)
    gone = [entry for entry in sorted(folder.glob("*.json")) if entry.name not in keep]
    for entry in gone:
        entry.unlink(missing_ok=True)
    return [entry.name for entry in gone]
