"""The guides stay guides: a short README, and no commit hash or dated diary in a guide or a code comment.

History (what was measured when, on which commit) belongs in git's log; the reasons that still hold are
in DECISIONS.md, and the latest figures in BENCHMARKS.md, which `make bench` writes with its date.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDES = ("README.md", "CONTRIBUTING.md", "engine/README.md", "DECISIONS.md")
README_LINES = 150
# A commit hash as people paste it: 7 to 40 hex digits with at least one digit and one letter.
HASH = re.compile(r"(?<![\w./#-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w/])")
DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")


def comments(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every comment in a Python file, or of every `#` line of a Makefile."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.lstrip().startswith("#")]
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return [(t.start[0], t.string) for t in tokens if t.type == tokenize.COMMENT]


def commented_files() -> list[Path]:
    files = [p for d in ("engine", "snippets", "tests") for p in sorted((ROOT / d).rglob("*.py"))]
    return files + [ROOT / "Makefile"]


def test_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines < README_LINES, f"README.md has {lines} lines; move detail to CONTRIBUTING.md or engine/README.md"


@pytest.mark.parametrize("guide", GUIDES)
def test_guide_holds_no_commit_hash(guide):
    text = (ROOT / guide).read_text(encoding="utf-8")
    found = [m.group() for m in HASH.finditer(text)]
    assert not found, f"{guide} names commits {found}: history belongs in git's log"


@pytest.mark.parametrize("guide", ("README.md", "CONTRIBUTING.md", "engine/README.md"))
def test_guide_holds_no_dated_diary(guide):
    text = (ROOT / guide).read_text(encoding="utf-8")
    found = DATE.findall(text)
    assert not found, f"{guide} holds dates {found}: figures go to BENCHMARKS.md (make bench), reasons to DECISIONS.md"


def test_comments_hold_no_commit_hash_or_date():
    found = [f"{path.relative_to(ROOT)}:{line}: {text.strip()}"
             for path in commented_files() for line, text in comments(path)
             if HASH.search(text) or DATE.search(text)]
    assert not found, "comments that name a commit or a date:\n" + "\n".join(found)


def test_patterns_catch_what_they_are_for():
    assert HASH.search("on commit 8504d3f, 436 s") and HASH.search("(5ded842, a README change)")
    assert not HASH.search("0x7f3a2b1c9d") and not HASH.search("1234567") and not HASH.search("deadbeef")
    assert not HASH.search("cache/00f60da7fb6dcb20b514981f.json")
    assert DATE.search("Latest, on 2026-11-28 (2 x H200)") and not DATE.search("2.13.0")


def test_the_engine_guide_names_every_module():
    text = (ROOT / "engine" / "README.md").read_text(encoding="utf-8")
    names = [p.relative_to(ROOT / "engine").as_posix() for p in sorted((ROOT / "engine").rglob("*.py"))]
    missing = [name for name in names if not name.endswith("__init__.py") and f"`{name}`" not in text]
    assert not missing, f"engine/README.md's table of modules lacks {missing}"
