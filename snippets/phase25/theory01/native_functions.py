"""Read an operator's declaration from native_functions.yaml, the registry the wheel ships in torchgen."""

import re
from pathlib import Path

import torchgen

YAML = Path(torchgen.__file__).parent / "packaged" / "ATen" / "native" / "native_functions.yaml"
KEPT_KEYS = {"CPU", "CUDA", "Meta", "CompositeImplicitAutograd", "CompositeExplicitAutograd",
             "CompositeExplicitAutogradNonFunctional"}
KEPT_FIELDS = ("- func:", "structured:", "structured_delegate:", "ufunc_inner_loop:", "dispatch:")


def entry(func: str) -> list[str]:
    """The lines of the entry `- func: <func>(...)`, e.g. entry("addmm.out")."""
    lines = YAML.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"- func: {func}("))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


def trimmed(func: str) -> str:
    """The entry with only the fields about kernels, and only the dispatch lines for dense CPU/CUDA/composites."""
    shown, skipped, field = [], 0, ""
    for line in entry(func):
        if not line.startswith("    "):
            field = line.strip()
            if field.startswith(KEPT_FIELDS):
                shown.append(line)
            continue
        keys = set(re.split(r",\s*", line.split(":")[0].strip()))
        if field.startswith("ufunc_inner_loop") or (field.startswith("dispatch") and keys & KEPT_KEYS):
            shown.append(line)
        elif field.startswith("dispatch"):
            skipped += 1
    if skipped:
        shown.append(f"    # ... {skipped} more line(s) for sparse, nested, MPS, XPU and other backends")
    return "\n".join(shown)
