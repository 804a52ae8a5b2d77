"""Every path the engine keeps its state in, and every knob it reads from the environment, each named once
with one line of help (`python -m engine.base.settings` lists them)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

KNOBS = {
    "NMB_JOBS": "snippet calls a build runs side by side (default: one per core, at most 4)",
    "NMB_PENDING_RECORDINGS": "1 while authoring: a missing GPU recording shows as pending, a stale one as it is",
    "NMB_SITE_URL": "the address the site is served from (mkdocs.yml's site_url; unset: every link relative)",
    "NMB_REPO_URL": "the course's repository, which each lab's run box links (mkdocs.yml's repo_url; unset: none)",
    "NMB_CHROMIUM": "the Chromium the browser tests drive (the Makefile's CHROMIUM, default /usr/bin/chromium)",
}


def knob(name: str) -> str | None:
    """The value of the knob `name` (one of KNOBS), or None when it is not set."""
    if name not in KNOBS:
        raise KeyError(f"{name} is no knob of the engine: add it to engine/base/settings.py's KNOBS")
    return os.environ.get(name)


@dataclass(frozen=True)
class Layout:
    """Where a project's builds keep what they reuse, all under `root`/.cache (git-ignored)."""

    root: Path

    @property
    def cache(self) -> Path:
        """every file below; `make clean` removes it"""
        return self.root / ".cache"

    @property
    def snippets(self) -> Path:
        """each snippet call's output, one JSON file per cache key; a build keeps only those it used"""
        return self.cache / "snippets"

    @property
    def notebook_html(self) -> Path:
        """each notebook page's HTML and table of contents, keyed by the notebook; kept as `snippets`"""
        return self.cache / "notebook-html"

    @property
    def render(self) -> Path:
        """highlighting, output conversions, notebooks and search entries; holds what the last build used"""
        return self.cache / "render.json"

    @property
    def sources(self) -> Path:
        """the snippets' closures, hashes and declarations, for a build that finds the snippets unchanged"""
        return self.cache / "sources.json"

    @property
    def timings(self) -> Path:
        """seconds each snippet call took when it last ran: the progress line's estimate"""
        return self.cache / "timings.json"

    @property
    def last_build(self) -> Path:
        """the last build's calls executed and their timings (`make bench` reads it)"""
        return self.cache / "last-build.json"

    @property
    def jinja(self) -> Path:
        """the theme's compiled templates (Jinja's own bytecode cache)"""
        return self.cache / "jinja"

    @property
    def inductor(self) -> Path:
        """Inductor's cache, unless TORCHINDUCTOR_CACHE_DIR says otherwise"""
        return self.cache / "inductor"

    @property
    def pycache(self) -> Path:
        """Python's bytecode (the Makefile's PYTHONPYCACHEPREFIX)"""
        return self.cache / "pycache"

    @property
    def uv(self) -> Path:
        """uv's wheels, which the venv's files are hard links to (the Makefile's UV_CACHE_DIR)"""
        return self.cache / "uv"


def describe() -> list[str]:
    """One line per path and knob, with its help."""
    here = Layout(Path())
    return (["paths:"] + [f"  {getattr(here, p)!s:26} {getattr(Layout, p).__doc__}" for p in _paths()]
            + ["knobs:"] + [f"  {name:26} {text}" for name, text in KNOBS.items()])


def _paths() -> list[str]:
    return [name for name, value in vars(Layout).items() if isinstance(value, property)]


if __name__ == "__main__":
    print("\n".join(describe()))
