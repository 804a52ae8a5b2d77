"""Shared by every lab deliverable: the manifest of a reference experiment folder."""

import argparse
import datetime
import json
import tempfile
from pathlib import Path

import torch

from engine import source_hash

ROOT = Path(__file__).resolve().parents[1]


def write_manifest(out: Path, seed: int, deliverable: Path, **extra) -> dict:
    """Write manifest.json (torch version, seed, UTC timestamp, code hash) and return it.

    The code hash covers the deliverable module and every project module it imports, the hash
    the build uses to tell a changed snippet (engine.source_hash).
    """
    manifest = {
        "torch": torch.__version__,
        "seed": seed,
        "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "code_hash": source_hash(ROOT, Path(deliverable)),
        **extra,
    }
    (Path(out) / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


MANIFEST_KEYS = frozenset({"torch", "seed", "timestamp", "code_hash"})


def read_manifest(out: Path) -> dict:
    return json.loads((Path(out) / "manifest.json").read_text(encoding="utf-8"))


def has_manifest(out: Path) -> bool:
    """Whether manifest.json holds the torch version, seed, timestamp and code hash."""
    return MANIFEST_KEYS <= read_manifest(out).keys()


def print_checklist(checks: dict[str, bool]) -> None:
    for criterion, ok in checks.items():
        print(f"[{'x' if ok else ' '}] {criterion}")


def out_dir(default_out: Path, argv: list[str] | None = None) -> Path:
    """OUT_DIR of `python -m <lab>.deliverable [OUT_DIR]`, the lab's default without one (an option
    such as `-f` is refused rather than taken for a folder name)."""
    parser = argparse.ArgumentParser(description="Write the lab's reference experiment folder.")
    parser.add_argument("out_dir", nargs="?", type=Path, default=Path(default_out), metavar="OUT_DIR")
    return parser.parse_args(argv).out_dir


def cli(write_experiment, default_out: Path) -> None:
    """`python -m <lab>.deliverable [OUT_DIR]`: write the folder and say where."""
    print(f"wrote {write_experiment(out_dir(default_out))}")


def preview(write_experiment, default_out: Path, check_acceptance, shown: str) -> None:
    """What a lab page shows: the folder written into a temporary directory, one of its files, the checklist."""
    with tempfile.TemporaryDirectory() as tmp:
        out = write_experiment(Path(tmp) / Path(default_out).name)
        print(f"wrote {sorted(p.name for p in out.iterdir())}\n")
        print((out / shown).read_text(encoding="utf-8"))
        print_checklist(check_acceptance(out))
