"""The engine in stages: each module lives in the package of its stage (engine/run/execute.py is in stage `run`),
imports (at the top or inside a function) only modules of its own stage or of stages below it, and no import
circle exists.

A page goes up the stages as engine/README.md's picture draws it: read (source), run, drawn from a GPU
recording (gpu), rendered (site), turned into a notebook (jupyter), all wired into MkDocs on top: the modules
left at engine/'s root, hooks.py and the tools that drive whole builds.
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
STAGES = ("base", "source", "run", "gpu", "site", "jupyter")  # bottom first; "top" above them all
TOP = ("__init__", "hooks", "background", "bench")  # the modules at engine/'s root


def modules(engine: Path = ENGINE) -> list[str]:
    """Every engine module, dotted (`engine.run.execute`; a package's __init__.py is the package)."""
    found = []
    for path in sorted(engine.rglob("*.py")):
        parts = path.relative_to(engine.parent).with_suffix("").parts
        found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in STAGES) else "top"


def rank(module: str) -> int:
    return STAGES.index(stage(module)) if stage(module) in STAGES else len(STAGES)


def file_of(module: str, engine: Path = ENGINE) -> Path:
    path = engine.parent.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def imports(module: str, engine: Path = ENGINE) -> set[str]:
    """The engine modules `module` imports, at the top or inside a function (relative imports resolved)."""
    known, file = set(modules(engine)), file_of(module, engine)
    package = module.split(".") if file.name == "__init__.py" else module.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):  # `from engine.site import pages` imports engine.site.pages
            anchor = package[:len(package) - node.level + 1] if node.level else []
            base = ".".join(anchor + ([node.module] if node.module else []))
            found |= {f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names}
    return {name for name in found if name in known} - {module}


def graph(engine: Path = ENGINE) -> dict[str, set[str]]:
    return {module: imports(module, engine) for module in modules(engine)}


def strays(engine: Path = ENGINE) -> list[str]:
    """Modules outside a stage package: at engine/'s root but not in TOP, or in a package that is no stage."""
    found = []
    for module in modules(engine):
        first = module.split(".")[1] if module != "engine" else "__init__"
        if first not in (STAGES if (engine / first).is_dir() else TOP):
            found.append(module)
    return found


def upward(module: str, engine: Path = ENGINE) -> list[str]:
    """The modules of stages above its own that `module` imports."""
    return sorted(m for m in imports(module, engine) if rank(m) > rank(module))


def test_every_module_lives_in_a_stage_package():
    assert not strays(), "put each engine module in the package of its stage (STAGES), or name a new stage there"
    assert all((ENGINE / name / "__init__.py").is_file() for name in STAGES)


@pytest.mark.parametrize("module", modules())
def test_a_stage_imports_only_stages_below_it(module):
    above = upward(module)
    assert not above, f"{module} ({stage(module)}) imports from stages above it: " + ", ".join(
        f"{m} ({stage(m)})" for m in above)


def test_no_import_circle():
    try:
        tuple(TopologicalSorter(graph()).static_order())
    except CycleError as error:
        pytest.fail(f"engine modules import each other in a circle: {' -> '.join(error.args[1])}")


def test_the_checks_catch_what_they_are_for(tmp_path):
    engine = tmp_path / "engine"
    for name, text in {"__init__.py": "", "hooks.py": "from engine.site import pages\n", "stray.py": "",
                       "base/__init__.py": "", "base/disk.py": "def f():\n    from engine.site import pages\n",
                       "site/__init__.py": "", "site/pages.py": "from ..base import disk\nfrom . import render\n",
                       "site/render.py": "import engine.site.pages\n", "extra/__init__.py": ""}.items():
        (engine / name).parent.mkdir(parents=True, exist_ok=True)
        (engine / name).write_text(text, encoding="utf-8")
    assert imports("engine.hooks", engine) == {"engine.site.pages"}
    assert imports("engine.site.pages", engine) == {"engine.base.disk", "engine.site.render"}
    assert stage("engine.site.pages") == "site" and stage("engine.site") == "site" and stage("engine.hooks") == "top"
    assert upward("engine.base.disk", engine) == ["engine.site.pages"] and not upward("engine.hooks", engine)
    assert strays(engine) == ["engine.extra", "engine.stray"]
    with pytest.raises(CycleError):
        tuple(TopologicalSorter(graph(engine)).static_order())
    assert "engine.run.execute" in imports("engine.hooks") and "engine.run.progress" in imports("engine.run.execute")
