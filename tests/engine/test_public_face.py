"""The engine's public face: snippets, the workbench and the notebooks' cells import from it only what `engine.__all__`
names, so that any other module of the engine may move (tests may import anything)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import engine
from engine.jupyter import notebooks

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = ("snippets", "workbench")  # every Python file there is the course's, not the engine's


def engine_imports(source: str) -> list[str]:
    """Each import of the engine in `source`, written `module:name` (`engine.source.sources:source_hash`)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"{a.name}:" for a in node.names if a.name.split(".")[0] == "engine"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "engine" and node.level == 0:
            found += [f"{node.module}:{a.name}" for a in node.names]
    return found


def private(imports: list[str]) -> list[str]:
    """The imports among `imports` that reach past the public face."""
    return [i for i in imports if i.split(":")[0] != "engine" or i.split(":")[1] not in engine.__all__]


def test_the_public_names_exist():
    assert all(hasattr(engine, name) for name in engine.__all__)


@pytest.mark.parametrize("folder", OUTSIDE)
def test_course_code_imports_only_the_public_face(folder):
    found = {str(p.relative_to(ROOT)): private(engine_imports(p.read_text(encoding="utf-8")))
             for p in sorted((ROOT / folder).rglob("*.py"))}
    found = {path: imports for path, imports in found.items() if imports}
    assert not found, f"imports past `engine.__all__` ({engine.__all__}): {found}"


def test_notebook_cells_import_only_the_public_face():
    """Every piece of code the notebooks' cells are made from (string constants of engine/jupyter/notebooks.py
    that import anything) imports the engine through its public face, and at least one does."""
    tree = ast.parse(Path(notebooks.__file__).read_text(encoding="utf-8"))
    cells = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
             and "import " in n.value and "engine" in n.value and _is_python(n.value)]
    imports = [i for cell in cells for i in engine_imports(cell)]
    assert imports and not private(imports), imports


def test_the_check_catches_an_internal_import():
    assert private(engine_imports("from engine.source.sources import source_hash")) == [
        "engine.source.sources:source_hash"]
    assert private(engine_imports("import engine.run.runner")) == ["engine.run.runner:"]
    assert private(engine_imports("from engine import recordings")) == ["engine:recordings"]
    assert not private(engine_imports("from engine import source_hash\nimport enginex"))


def _is_python(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True
