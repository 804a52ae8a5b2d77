"""The engine in stages: each module belongs to one stage of the pipeline, imports (at the top or inside a
function) only modules of its own stage or of stages below it, and no import circle exists.

A page goes down the stages' list in engine/README.md's picture: found (source), run, drawn from a GPU
recording (gpu), rendered (site), turned into a notebook (notebooks), all wired into MkDocs on top.
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
STAGES = {  # bottom first
    "store": ("atomic", "settings", "syntax", "store"),
    "source": ("urls", "numerics", "claims", "sources", "includes", "translations", "parity"),
    "run": ("runner", "child", "forkserver", "schedule", "progress", "execute"),
    "gpu": ("recordings", "record"),
    "site": ("bilingual", "render", "render_cache", "interface", "lighter", "search_text", "search_split", "weight",
             "reading_time", "not_found", "pages"),
    "notebooks": ("notebooks", "notebook_html", "notebook_pages"),
    "top": ("hooks", "background", "bench", "__init__"),
}
RANK = {module: rank for rank, modules in enumerate(STAGES.values()) for module in modules}


def engine_modules() -> list[str]:
    return sorted(p.stem for p in ENGINE.glob("*.py"))


def imports(module: str) -> set[str]:
    """The engine modules `module` imports, at the top or inside a function."""
    tree = ast.parse((ENGINE / f"{module}.py").read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[1] for a in node.names if a.name.startswith("engine.")}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "engine":
            found |= {a.name for a in node.names if a.name in RANK}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("engine."):
            found.add(node.module.split(".")[1])
    return found - {module}


def graph() -> dict[str, set[str]]:
    return {module: imports(module) for module in engine_modules()}


def test_every_module_has_a_stage():
    assert sorted(RANK) == engine_modules(), "give each new engine module its stage in STAGES"


@pytest.mark.parametrize("module", engine_modules())
def test_a_stage_imports_only_stages_below_it(module):
    upward = sorted(m for m in imports(module) if RANK[m] > RANK[module])
    assert not upward, f"engine/{module}.py ({_stage(module)}) imports from stages above it: " + ", ".join(
        f"{m} ({_stage(m)})" for m in upward)


def test_no_import_circle():
    try:
        tuple(TopologicalSorter(graph()).static_order())
    except CycleError as error:
        pytest.fail(f"engine modules import each other in a circle: {' -> '.join(error.args[1])}")


def test_the_checks_catch_what_they_are_for(tmp_path):
    assert TopologicalSorter({"a": {"b"}, "b": set()}).static_order()
    with pytest.raises(CycleError):
        tuple(TopologicalSorter({"a": {"b"}, "b": {"a"}}).static_order())
    assert "execute" in imports("hooks") and "progress" in imports("execute")


def _stage(module: str) -> str:
    return next(stage for stage, modules in STAGES.items() if module in modules)
