"""Throwaway bilingual sites built with the real engine, for fault injection."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CONFIG = f"""
site_name: sandbox
theme:
  name: material
  font: false
markdown_extensions:
  - pymdownx.superfences
  - pymdownx.tabbed:
      alternate_style: true
  - admonition
plugins:
  - search
  - i18n:
      docs_structure: suffix
      fallback_to_default: false
      languages:
        - locale: en
          default: true
          name: English
        - locale: es
          name: Español
  - markdown-exec
hooks:
  - {ROOT / "engine" / "hooks.py"}
"""


def include(path: str, **options) -> str:
    args = "".join(f", {k}={v!r}" for k, v in options.items())
    return f'```python exec="1"\nprint(snippet({path!r}{args}))\n```\n'


@dataclass
class Build:
    returncode: int
    log: str
    site: Path

    def page(self, lang: str = "en", name: str = "index") -> str:
        folder = self.site / ("" if lang == "en" else lang) / ("" if name == "index" else name)
        return (folder / "index.html").read_text(encoding="utf-8")


class Sandbox:
    def __init__(self, path: Path):
        self.path = path
        (path / "docs").mkdir(parents=True, exist_ok=True)
        (path / "snippets").mkdir(exist_ok=True)
        (path / "snippets" / "__init__.py").write_text("")
        (path / "mkdocs.yml").write_text(CONFIG)

    def snippet(self, name: str, code: str) -> Path:
        file = self.path / "snippets" / name
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(textwrap.dedent(code))
        return file

    def page(self, name: str, body: str, translate: bool = True) -> None:
        (self.path / "docs" / f"{name}.md").write_text(f"# Page {{ #page }}\n\n{body}")
        if translate:
            (self.path / "docs" / f"{name}.es.md").write_text(f"# Página {{ #page }}\n\n{body}")

    def build(self, strict: bool = True, timeout: float = 120, preexec_fn=None, env=None) -> Build:
        inherited = {k: v for k, v in os.environ.items() if k != "NMB_PENDING_RECORDINGS"}  # only when asked
        env = {**inherited, "NO_MKDOCS_2_WARNING": "1", **(env or {})}
        site = self.path / "site"
        cmd = [sys.executable, "-m", "mkdocs", "build", "-f", str(self.path / "mkdocs.yml"), "-d", str(site)]
        done = subprocess.run(cmd + (["--strict"] if strict else []), cwd=self.path, env=env,
                              capture_output=True, text=True, timeout=timeout, preexec_fn=preexec_fn)
        return Build(done.returncode, done.stdout + done.stderr, site)
