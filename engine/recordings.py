"""Outputs recorded on an NVIDIA GPU, stored in the repo with their provenance."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from engine.sources import PACKAGE, SnippetError, module_name, source_hash

FOLDER = "recordings"
RECORD_COMMAND = "make record"


@dataclass(frozen=True)
class Recording:
    output: str
    source_hash: str
    provenance: dict[str, str]


def recording_path(root: Path, path: Path, call: str) -> Path:
    """Where the recording of `call()` in the snippet at `path` lives."""
    name = module_name(root, path).removeprefix(PACKAGE + ".")
    return root / PACKAGE / FOLDER / f"{name}.{call}.json"


def load(root: Path, path: Path, call: str) -> Recording | None:
    file = recording_path(root, path, call)
    if not file.is_file():
        return None
    data = json.loads(file.read_text(encoding="utf-8"))
    return Recording(data["output"], data["source_hash"], data["provenance"])


def stale_reason(root: Path, path: Path, call: str) -> str | None:
    """Why the recording is missing or out of date, or None when it is current."""
    rel = path.relative_to(root.resolve())
    recording = load(root, path, call)
    if recording is None:
        return f"no GPU recording of {rel}:{call}(); run `{RECORD_COMMAND}` on a machine with an NVIDIA GPU"
    current = source_hash(root, path)
    if recording.source_hash != current:
        return (f"the GPU recording of {rel}:{call}() is stale (recorded from source {recording.source_hash}, "
                f"source is now {current}); run `{RECORD_COMMAND}` on a machine with an NVIDIA GPU")
    return None


PENDING_ENV = "NMB_PENDING_RECORDINGS"


def current(root: Path, path: Path, call: str) -> Recording | None:
    """The recording; None for a missing one while authoring with NMB_PENDING_RECORDINGS=1
    (tests never set it); SnippetError when it is missing or stale."""
    reason = stale_reason(root, path, call)
    if reason and os.environ.get(PENDING_ENV) == "1" and load(root, path, call) is None:
        return None
    if reason:
        raise SnippetError(reason)
    return load(root, path, call)


def save(root: Path, path: Path, call: str, output: str, provenance: dict[str, str]) -> Path:
    file = recording_path(root, path, call)
    file.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "snippet": str(path.relative_to(root.resolve())),
        "call": call,
        "source_hash": source_hash(root, path),
        "provenance": provenance,
        "output": output,
    }
    file.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return file
