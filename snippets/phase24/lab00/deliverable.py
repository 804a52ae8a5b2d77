"""Lab 00's deliverable: run the toolchain check and keep its result.

Usage: python -m snippets.phase24.lab00.deliverable [OUT_DIR]
Writes OUT_DIR (default experiments/24-hello-cuda/): checks.json and manifest.json; exits 1 when a check fails.
"""

import json
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

from snippets.experiment import out_dir, write_manifest
from snippets.phase24.lab00.hello_cuda import run_checks

ISOLATE = True  # runs torch.compile
TIMEOUT = 180
DEFAULT_OUT = Path("experiments/24-hello-cuda")
SEED = 0


def write_experiment(out: Path = DEFAULT_OUT) -> tuple[Path, bool]:
    """The folder written, and whether every check passed."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    checks = run_checks()
    (out / "checks.json").write_text(json.dumps([asdict(c) for c in checks], indent=1) + "\n", encoding="utf-8")
    passed = all(c.ok for c in checks)
    write_manifest(out, SEED, Path(__file__), all_checks_passed=passed)
    return out, passed


def main():
    with tempfile.TemporaryDirectory() as tmp:
        out, passed = write_experiment(Path(tmp) / DEFAULT_OUT.name)
        print("files:", sorted(p.name for p in out.iterdir()))
        print("checks.json names:", [c["name"] for c in json.loads((out / "checks.json").read_text())])
        manifest = json.loads((out / "manifest.json").read_text())
        print("manifest keys:", sorted(manifest), "| all_checks_passed:", manifest["all_checks_passed"])


if __name__ == "__main__":
    folder, ok = write_experiment(out_dir(DEFAULT_OUT))
    print(f"wrote {folder}; {'all checks passed' if ok else 'a check failed: see checks.json'}")
    sys.exit(0 if ok else 1)


def claim_what_it_wrote(main):
    """#deliverable: checks.json and manifest.json, the manifest with the torch version, seed, timestamp and code hash."""
    return (main.line("files:").endswith("['checks.json', 'manifest.json']")
            and all(f"'{key}'" in main.line("manifest keys:") for key in ("torch", "seed", "timestamp", "code_hash")))
