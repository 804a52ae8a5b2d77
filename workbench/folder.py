"""A learner's deliverable folder, read so that whatever is missing or off is said in one sentence."""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path

from workbench.grade import Wrong

MANIFEST = {"torch": "the torch version", "seed": "the seed", "timestamp": "a UTC timestamp",
            "code_hash": "the code hash"}


class Folder:
    """The files of `path`, each read once; a file, a section or a key that is not there raises Wrong."""

    def __init__(self, path: Path):
        self.path = Path(path)
        if not self.path.is_dir():
            raise Wrong(f"there is no folder {self.path}: write your deliverable there, or name the folder it is in")

    def file(self, name: str) -> Path:
        file = self.path / name
        if not file.is_file():
            raise Wrong(f"{file} is missing: the lab's deliverable has a file {name}")
        return file

    def text(self, name: str) -> str:
        return self.file(name).read_text(encoding="utf-8")

    def json(self, name: str):
        try:
            return json.loads(self.text(name))
        except json.JSONDecodeError as error:
            raise Wrong(f"{self.path / name} is not valid JSON ({error})") from None

    def section(self, name: str, title: str) -> str:
        """The body of the first `## ` heading in file `name` that starts with `title` (any case)."""
        parts = re.split(r"^## (.*)$", self.text(name), flags=re.MULTILINE)
        for heading, body in zip(parts[1::2], parts[2::2]):
            if heading.strip().lower().startswith(title.lower()):
                return body.split("\n# ", 1)[0]
        raise Wrong(f"{self.path / name} has no section \"## {title}...\": the lab asks for it")

    def manifest(self, *extra: str) -> dict:
        """manifest.json, with the torch version, seed, timestamp and code hash (snippets/experiment.py)
        and the `extra` keys."""
        manifest = self.json("manifest.json")
        for key in (*MANIFEST, *extra):
            if key not in manifest:
                what = MANIFEST.get(key, f"the key {key!r}")
                raise Wrong(f"{self.path / 'manifest.json'} has no {key!r}: it should hold {what}")
        if not isinstance(manifest["seed"], int):
            raise Wrong(f"manifest.json's seed is {manifest['seed']!r}, expected the integer your code seeded with")
        try:
            stamp = datetime.datetime.fromisoformat(manifest["timestamp"])
        except (TypeError, ValueError):
            stamp = None
        if stamp is None or stamp.utcoffset() is None:
            raise Wrong(f"manifest.json's timestamp is {manifest['timestamp']!r}, expected an ISO 8601 time with "
                        "its zone, as datetime.now(timezone.utc).isoformat() writes it")
        if not re.fullmatch(r"[0-9a-f]{16,64}", str(manifest["code_hash"])):
            raise Wrong(f"manifest.json's code_hash is {manifest['code_hash']!r}, expected a hex digest "
                        "(engine.source_hash of your deliverable script)")
        return manifest


def same(what: str, found, expected, why: str = "") -> None:
    """Raise Wrong, naming `what`, unless `found` equals `expected`."""
    if found != expected:
        raise Wrong(f"{what} is {found!r}, expected {expected!r}" + (f" ({why})" if why else ""))


def table(text: str, where: str) -> list[dict[str, str]]:
    """The first Markdown table in `text`, its rows as dicts keyed by the header's cells."""
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith("|")]
    if len(lines) < 3:
        raise Wrong(f"{where} has no Markdown table")
    cells = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    return [dict(zip(cells[0], row)) for row in cells[2:]]


def number(text: str, after: str, where: str) -> float:
    """The number right after `after` in `text`."""
    found = re.search(re.escape(after) + r"\s*(-?[\d.]+(?:e[-+]?\d+)?)", text)
    if found is None:
        raise Wrong(f"{where} does not give the number after \"{after}\"")
    return float(found.group(1))
