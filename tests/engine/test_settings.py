"""One place names every path the engine keeps state in and every knob it reads: engine/base/settings.py."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from engine.base import settings

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"


def test_every_knob_the_project_reads_is_named_with_its_help():
    """Read by the engine, the Makefile, mkdocs.yml or the tests of the built site (the engine's own tests
    set variables of their own in their sandboxes)."""
    files = [*ROOT.glob("engine/**/*.py"), *ROOT.glob("tests/website/*.py"), ROOT / "tests" / "conftest.py",
             ROOT / "Makefile", ROOT / "mkdocs.yml"]
    used = {name for f in files for name in re.findall(r"\bNMB_[A-Z_]+\b", f.read_text(encoding="utf-8"))}
    unnamed = sorted(used - set(settings.KNOBS))
    assert not unnamed, f"knobs without a line in engine/base/settings.py: {unnamed}"
    assert all(settings.KNOBS.values())


def test_no_engine_module_but_settings_spells_a_cache_path():
    found = [f"{p.relative_to(ENGINE)}:{node.lineno}" for p in sorted(ENGINE.rglob("*.py")) if p.name != "settings.py"
             for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
             if isinstance(node, ast.Constant) and isinstance(node.value, str)
             and (node.value == ".cache" or node.value.startswith(".cache/"))]
    assert not found, f"paths under .cache spelled outside engine/base/settings.py: {found}"


def test_every_path_has_its_help_and_lies_under_the_cache():
    layout = settings.Layout(Path("/project"))
    lines = settings.describe()
    for name in settings._paths():
        assert getattr(settings.Layout, name).__doc__, name
        assert getattr(layout, name).is_relative_to(layout.cache)
    assert any(".cache/snippets" in line for line in lines) and any("NMB_JOBS" in line for line in lines)


def test_an_unknown_knob_is_refused():
    try:
        settings.knob("NMB_NOT_A_KNOB")
    except KeyError as error:
        assert "engine/base/settings.py" in str(error)
    else:
        raise AssertionError("an unknown knob was read")
