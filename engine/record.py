"""Record on an NVIDIA GPU every CUDA snippet whose recording is missing or stale.

Usage: python -m engine.record [--all] [--dry-run]
Needs only Python and a CUDA build of torch: no docs stack.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
from pathlib import Path

from engine import claims, recordings
from engine.includes import page_includes
from engine.runner import child_env, mask_addresses, run_in_subprocess
from engine.sources import declarations, module_name, snippet_path

ROOT = Path(__file__).resolve().parent.parent


def cuda_calls(root: Path) -> list[tuple[Path, str]]:
    """(snippet file, function) for every CUDA snippet call that a page includes."""
    found = set()
    for page in sorted((root / "docs").rglob("*.md")):
        for include in page_includes(page.read_text(encoding="utf-8")):
            path = snippet_path(root, include.path)
            if include.call and "cuda" in declarations(path).devices:
                found.add((path, include.call))
    return sorted(found)


def provenance() -> dict[str, str]:
    import torch

    try:
        import triton

        triton_version = triton.__version__
    except ImportError:
        triton_version = "absent"
    return {
        "gpu": torch.cuda.get_device_name(0),
        "gpu_count": str(torch.cuda.device_count()),
        "torch": torch.__version__,
        "triton": triton_version,
        "cuda": str(torch.version.cuda),
        "python": platform.python_version(),
        "date": datetime.date.today().isoformat(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="re-record current recordings too")
    parser.add_argument("--dry-run", action="store_true", help="list what would be recorded")
    parser.add_argument("--only", default="", help="record only modules whose name contains this")
    args = parser.parse_args(argv)
    todo = [(p, c) for p, c in cuda_calls(ROOT)
            if (args.all or recordings.stale_reason(ROOT, p, c)) and args.only in module_name(ROOT, p)]
    print(f"{len(todo)} recording(s) to make")
    if args.dry_run or not todo:
        for path, call in todo:
            print(f"  {module_name(ROOT, path)}.{call}()")
        return 0
    import torch

    if not torch.cuda.is_available():
        print("no CUDA device: run `make record` on a machine with an NVIDIA GPU", file=sys.stderr)
        return 2
    env = child_env(ROOT)
    env.pop("TRITON_INTERPRET", None)
    info = provenance()
    failed = 0
    for path, call in todo:
        name = f"{module_name(ROOT, path)}.{call}()"
        result = run_in_subprocess(ROOT, module_name(ROOT, path), call, declarations(path).timeout * 3, env)
        output = mask_addresses(result.output)
        false = claims.check(path, call, claims.Output(output, "cuda", info)) if result.ok else []
        if result.ok and not false:
            recordings.save(ROOT, path, call, output, info)
            print(f"recorded {name}", flush=True)
        elif false:
            failed += 1
            print(f"NOT RECORDED {name}: its output breaks what the pages say\n" + "\n".join(false)
                  + f"\n--- output ---\n{output}", flush=True)
        else:
            failed += 1
            print(f"FAILED {name}\n{result.output}\n{result.error}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main())
