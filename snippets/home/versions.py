"""The versions behind the outputs: this build's, and each GPU recording's."""

import json
import platform
from collections import Counter
from importlib import metadata
from pathlib import Path

INPUTS = ("recordings",)
RECORDINGS = Path(__file__).resolve().parent.parent / "recordings"


def build_versions() -> dict[str, str]:
    return {name: metadata.version(name) for name in ("torch", "triton", "numpy", "mkdocs", "mkdocs-material")} | {
        "python": platform.python_version()}


def recording_setups() -> Counter:
    """How many recordings each (GPU, torch, triton, CUDA) combination produced."""
    setups = Counter()
    for file in RECORDINGS.glob("*.json"):
        p = json.loads(file.read_text(encoding="utf-8"))["provenance"]
        setups[(p["gpu"], p["torch"], p["triton"], p["cuda"])] += 1
    return setups


def main():
    print("Built on CPU with:")
    for name, version in build_versions().items():
        print(f"  {name:16} {version}")
    setups = recording_setups()
    print(f"\nGPU recordings: {sum(setups.values())}")
    for (gpu, torch, triton, cuda), count in sorted(setups.items()):
        print(f"  {count:3} on {gpu}, torch {torch}, triton {triton}, CUDA {cuda}")


def claim_recordings_use_other_versions(main):
    """#versions: the GPU recordings come from other versions of torch and Triton than the CPU build's, listed first."""
    torch, triton = (main.line(f"  {name} ").split()[1].split("+")[0] for name in ("torch", "triton"))
    setups = [line for line in main.between("GPU recordings:").lines if line.strip()]
    return bool(setups) and all(f"torch {torch}" not in line and f"triton {triton}" not in line for line in setups)
