"""Outputs recorded on an NVIDIA GPU, stored in the repo with their provenance."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from engine.base import atomic
from engine.base.settings import knob
from engine.source.sources import PACKAGE, SnippetError, declarations, module_name, snippet_path, source_hash

log = logging.getLogger("mkdocs.engine")
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


def read(file: Path) -> Recording | None:
    if not file.is_file():
        return None
    data = json.loads(file.read_text(encoding="utf-8"))
    return Recording(data["output"], data["source_hash"], data["provenance"])


def load(root: Path, path: Path, call: str) -> Recording | None:
    return read(recording_path(root, path, call))


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


def read_calls(root: Path, path: Path) -> list[tuple[Path, str]]:
    """(snippet file, function) of each GPU recording the snippet at `path` reads (declared among its
    INPUTS as `recordings/<module>.<function>.json`)."""
    calls = []
    for name in declarations(path).inputs:
        if name.startswith(FOLDER + "/") and name.endswith(".json"):
            module, call = name.removeprefix(FOLDER + "/").removesuffix(".json").rsplit(".", 1)
            calls.append((snippet_path(root, module.replace(".", "/") + ".py"), call))
    return calls


def drawn_from(root: Path, path: Path) -> Recording | None:
    """The GPU recording a CPU snippet reads (declared among its INPUTS), if it reads one."""
    for recorded, call in read_calls(root, path):
        return load(root, recorded, call)
    return None


PENDING_ENV = "NMB_PENDING_RECORDINGS"


def current(root: Path, path: Path, call: str) -> Recording | None:
    """The recording; SnippetError when it is missing or stale. While authoring with
    NMB_PENDING_RECORDINGS=1 (tests never set it), a missing one is None and a stale one is
    shown as it is (the log says so), so that prose and claims can be checked against it."""
    reason = stale_reason(root, path, call)
    if reason and knob(PENDING_ENV) == "1":
        log.info("engine: authoring mode, shown anyway: %s", reason)
        return load(root, path, call)
    if reason:
        raise SnippetError(reason)
    return load(root, path, call)


def save(root: Path, path: Path, call: str, output: str, provenance: dict[str, str]) -> Path:
    file = recording_path(root, path, call)
    data = {
        "snippet": str(path.relative_to(root.resolve())),
        "call": call,
        "source_hash": source_hash(root, path),
        "provenance": provenance,
        "output": output,
    }
    atomic.write_text(file, json.dumps(data, indent=1, ensure_ascii=False) + "\n")  # whole or not at all
    return file
