"""`make bench`: build times and snippet executions, on a copy of the project, written to BENCHMARKS.md.

Measures a cold build of both languages with empty caches, a rebuild with nothing changed, a rebuild
after a prose edit, and how long a prose edit and a snippet edit take to show under `mkdocs serve --dirty`;
then where the cold build's time went: the slowest snippet calls, the totals of each kind of call, and
the time spent outside snippets (MkDocs, both language passes, the search split, notebooks); then what
each page of the site weighs, with what it loads, and each language's search index (engine/site/weight.py).
It also times `make record --dry-run --all` (reading every snippet's declarations and recordings, no
GPU needed). Every figure comes with the CPU time it took (user + system, children included) and the load
average; the file names the machine and the date, and holds the latest figures and, below them, the table
of the run before (so that a change's cost shows before and after, on the same machine).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from importlib.metadata import version
from pathlib import Path
from urllib.parse import urlsplit

from engine.site import weight
from engine.run.execute import jobs
from engine.base.settings import Layout, knob

ROOT = Path(__file__).resolve().parent.parent
COPIED = ("mkdocs.yml", "docs", "snippets", "engine", "workbench")
EDITED_PAGE = Path("docs/phase-25/index.md")
EDITED_SNIPPET = Path("snippets/phase25/lab00/part_a_baseline.py")
REPORT = ROOT / "BENCHMARKS.md"
TARGETS = {"rebuild, nothing changed": "≤ 5 s", "mkdocs serve: prose edit shown": "≤ 3 s"}


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


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_build(project: Path) -> tuple[float, float, int, dict]:
    """(seconds, CPU seconds, snippet calls executed, the build's own statistics) for one strict build."""
    start, cpu = time.perf_counter(), cpu_seconds()
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q"], cwd=project,
                   env=environment(), check=True)
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    stats = json.loads(Layout(project).last_build.read_text())
    return seconds, cpu, len(stats["executed"]), stats


def timed_record_listing(project: Path) -> tuple[float, float, int]:
    """(seconds, CPU seconds, calls listed) for `python -m engine.gpu.record --dry-run --all`."""
    start, cpu = time.perf_counter(), cpu_seconds()
    listing = subprocess.run([sys.executable, "-m", "engine.gpu.record", "--dry-run", "--all"], cwd=project,
                             env=environment(), check=True, capture_output=True, text=True).stdout
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    return seconds, cpu, sum(line.startswith("  snippets.") for line in listing.splitlines())


def previous_run(report: str) -> list[str]:
    """The first table of an earlier BENCHMARKS.md, with the line that says when and where it was taken."""
    lines = report.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("Written by")), None)
    first = next((i for i in range(start or 0, len(lines)) if lines[i].startswith("|")), None)
    if start is None or first is None:
        return []
    end = next((i for i in range(first, len(lines)) if not lines[i].startswith("|")), len(lines))
    taken = lines[start].split(". One run")[0].rstrip(".").replace("Written by", "Taken by", 1)
    return ["## The run before", "", f"{taken}.", "", *lines[first:end]]


def breakdown(seconds: float, stats: dict, slowest: int = 15) -> list[str]:
    """Where a build's time went: its slowest calls, the totals of each kind, the time outside snippets."""
    timings = sorted(stats["timings"].items(), key=lambda item: -item[1]["seconds"])
    lines = [f"{'the ' + str(min(slowest, len(timings))) + ' slowest snippet calls':58} {'seconds':>8}  kind"]
    lines += [f"  {name:56} {t['seconds']:8.1f}  {t['kind']}" for name, t in timings[:slowest]]
    lines.append(f"{'snippet calls, by kind':58} {'seconds':>8}  calls")
    for kind in ("in-process", "isolated", "multi-process"):
        of_kind = [t["seconds"] for _, t in timings if t["kind"] == kind]
        lines.append(f"  {kind:56} {sum(of_kind):8.1f}  {len(of_kind)}")
    running = stats["prefetch_seconds"]
    lines.append(f"  {'all of them, side by side (wall clock)':56} {running:8.1f}")
    lines.append(f"{'outside snippets (MkDocs, both languages, search, notebooks)':58} {seconds - running:8.1f}")
    return lines


def precompiled_headers() -> set[str]:
    """The headers Inductor has precompiled on this machine: it keeps them under the system's temporary
    folder (/tmp/torchinductor_<user>/precompiled_headers), outside TORCHINDUCTOR_CACHE_DIR, so a cold
    build into empty project caches still finds those an earlier build made with the same flags."""
    from torch._inductor.runtime.cache_dir_utils import default_cache_dir

    return {p.name for p in (Path(default_cache_dir()) / "precompiled_headers").glob("*.gch")}


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


def machine() -> str:
    """The processor, its cores and memory, and the versions that built the site."""
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = next((line.split(":", 1)[1].strip() for line in cpuinfo.splitlines() if line.startswith("model name")),
                 platform.processor() or platform.machine())
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (f"{model}, {os.cpu_count()} core(s), {memory:.0f} GiB; Python {platform.python_version()}, "
            f"torch {version('torch')}, MkDocs {version('mkdocs')}")


def markdown(rows: list, latencies: dict[str, float], details: list[str], when: str, where: str,
             before: list[str]) -> str:
    """BENCHMARKS.md: the latest figures, with the machine and the date they were taken on, then the
    table of the run before."""
    lines = ["# Benchmarks", "",
             f"Written by `make bench` (`python -m engine.bench`) on {when}, on {where}.", "",
             "One run of each, on a copy of the project; DECISIONS.md says why the targets are what they are.", "",
             "| what (both languages, strict) | seconds | CPU s | snippets executed | load | target |",
             "| --- | --- | --- | --- | --- | --- |"]
    lines += [f"| {name} | {seconds:.1f} | {cpu:.1f} | {executed} | {load:.2f} | {TARGETS.get(name, '')} |"
              for name, seconds, cpu, executed, _, load in rows]
    lines += [f"| mkdocs serve: {name} shown | {seconds:.1f} | | | | {TARGETS.get('mkdocs serve: ' + name + ' shown', '')} |"
              for name, seconds in latencies.items()]
    return "\n".join(lines + ["", "```text", *details, "```", ""] + ([*before, ""] if before else []))


def main() -> None:
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    with tempfile.TemporaryDirectory(prefix="nmb-bench-") as tmp:
        project = Path(tmp)
        copy_project(project)
        headers = precompiled_headers()
        rows = [("cold build, empty caches", *timed_build(project), os.getloadavg()[0])]
        made = len(precompiled_headers() - headers)
        rows.append(("rebuild, nothing changed", *timed_build(project), os.getloadavg()[0]))
        edit_prose(project, "A prose edit.")
        rows.append(("rebuild after a prose edit", *timed_build(project), os.getloadavg()[0]))
        size, notebooks, pages = site_sizes(project / "site")
        weights = weight.report(project / "site", urlsplit(knob("NMB_SITE_URL") or "/").path or "/")
        latencies = serve_latencies(project)
        listed = timed_record_listing(project)
    rows.append(("make record --dry-run --all", listed[0], listed[1], 0, {}, os.getloadavg()[0]))
    details = [f"cold build on {os.cpu_count()} core(s), {jobs()} call(s) at a time; Inductor's precompiled "
               f"headers: {len(headers)} there before it, {made} made by it:",
               *breakdown(rows[0][1], rows[0][4]),
               f"make record --dry-run --all: {listed[2]} calls listed, none run",
               f"site, both languages: {size / 1e6:.1f} MB, of which {pages} notebook pages and their "
               f"stylesheet: {notebooks / 1e6:.1f} MB",
               *weights]
    before = previous_run(REPORT.read_text(encoding="utf-8")) if REPORT.exists() else []
    text = markdown(rows, latencies, details, when, machine(), before)
    REPORT.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
