"""`make bench`: build times and snippet executions, on a copy of the project.

Measures a cold build of both languages with empty caches, a rebuild with nothing changed, a rebuild
after a prose edit, and how long a prose edit and a snippet edit take to show under `mkdocs serve --dirty`.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COPIED = ("mkdocs.yml", "docs", "snippets", "engine")
EDITED_PAGE = Path("docs/phase-25/index.md")
EDITED_SNIPPET = Path("snippets/phase25/lab00/part_a_baseline.py")


def copy_project(dest: Path) -> None:
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, dest / name)


def environment() -> dict[str, str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    for name in ("NMB_PENDING_RECORDINGS", "TORCHINDUCTOR_CACHE_DIR"):
        env.pop(name, None)  # the copy's own .cache/inductor, starting empty
    return env


def timed_build(project: Path) -> tuple[float, int]:
    """(seconds, snippet calls executed) for one strict build."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q"], cwd=project,
                   env=environment(), check=True)
    seconds = time.perf_counter() - start
    executed = json.loads((project / ".cache" / "last-build.json").read_text())["executed"]
    return seconds, len(executed)


def site_sizes(site: Path) -> tuple[int, int, int]:
    """(bytes of the built site, bytes of its notebook pages with their one stylesheet, notebook pages)."""
    files = [f for f in site.rglob("*") if f.is_file()]
    pages = [f for f in files if f.name == "index.html" and f.parent.name == "notebook"]
    stylesheet = [f for f in files if f.name == "notebook.css"]
    return sum(f.stat().st_size for f in files), sum(f.stat().st_size for f in pages + stylesheet), len(pages)


def edit_prose(project: Path, marker: str) -> None:
    page = project / EDITED_PAGE
    page.write_text(page.read_text(encoding="utf-8") + f"\n{marker}\n", encoding="utf-8")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.read().decode("utf-8")
    except OSError:
        return ""


def edit_snippet(project: Path, marker: str) -> None:
    snippet = project / EDITED_SNIPPET
    text = snippet.read_text(encoding="utf-8")
    snippet.write_text(text.replace('print("y.shape:        ", shape)', f'print("{marker}", shape)'), encoding="utf-8")


def serve_latencies(project: Path, timeout: float = 120) -> dict[str, float]:
    """Seconds from saving an edit to `mkdocs serve` serving it: a prose edit, then a snippet edit."""
    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "--dirty", "--dev-addr", f"127.0.0.1:{port}"],
                              cwd=project, env=environment(), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while "Phase 25" not in fetch(base + "phase-25/"):
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError("mkdocs serve did not start")
            time.sleep(0.2)
        latencies = {}
        for name, edit, page in (("prose edit", edit_prose, "phase-25/"),
                                 ("snippet edit", edit_snippet, "phase-25/lab/00-dispatcher-trace/")):
            time.sleep(1)  # let the watcher settle after the last build
            marker = f"Edited{time.time_ns()}"
            start = time.monotonic()
            edit(project, marker)
            while marker not in fetch(base + page):
                if time.monotonic() - start > timeout:
                    raise RuntimeError(f"the {name} never showed")
                time.sleep(0.1)
            latencies[name] = time.monotonic() - start
        return latencies
    finally:
        os.killpg(server.pid, 9)
        server.wait()


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="nmb-bench-") as tmp:
        project = Path(tmp)
        copy_project(project)
        rows = [("cold build, empty caches", *timed_build(project)),
                ("rebuild, nothing changed", *timed_build(project))]
        edit_prose(project, "A prose edit.")
        rows.append(("rebuild after a prose edit", *timed_build(project)))
        size, notebooks, pages = site_sizes(project / "site")
        latencies = serve_latencies(project)
    print(f"{'build (both languages)':32} {'seconds':>8} {'snippets executed':>18}")
    for name, seconds, executed in rows:
        print(f"{name:32} {seconds:8.1f} {executed:18d}")
    for name, seconds in latencies.items():
        print(f"{'mkdocs serve: ' + name + ' shown':32} {seconds:8.1f}")
    print(f"site, both languages: {size / 1e6:.1f} MB, of which {pages} notebook pages and their stylesheet: "
          f"{notebooks / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
