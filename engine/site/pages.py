"""`snippet()`, the function every exec block calls, and the per-page bookkeeping behind it."""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path

from engine.source import claims
from engine.gpu import recordings
from engine.site import render
from engine.run.execute import Executor
from engine.source.includes import Include, IncludeError, page_includes
from engine.source.sources import (PACKAGE, SnippetError, declarations, part_source, snippet_path, source_hash,
                                   uses_triton)

log = logging.getLogger("mkdocs.engine")

class StillRunning(SnippetError):
    """`mkdocs serve`: an output the background run has not produced yet (its notice is the message)."""


@dataclass
class Failure:
    lang: str
    page: str
    snippet: str
    message: str

    def __str__(self) -> str:
        return f"[{self.lang}] page {self.page}, snippet {self.snippet}:\n{self.message.rstrip()}"


@dataclass
class Site:
    """State shared by every page of a build (both languages)."""

    executor: Executor
    lang: str = "en"
    page: str = "?"
    rendered: int = 0
    failures: list[Failure] = field(default_factory=list)
    waiting: bool = False  # `mkdocs serve`: outputs still coming from the background run (engine.background)
    running: set[str] = field(default_factory=set)  # pages that showed an output still running

    @property
    def root(self) -> Path:
        return self.executor.root

    def start_page(self, page: str, lang: str) -> None:
        self.page, self.lang, self.rendered = page, lang, 0
        self.failures = [f for f in self.failures if (f.lang, f.page) != (lang, page)]
        self.running.discard(page)

    def require(self, path: Path, call: str, name: str) -> None:
        """Raise StillRunning while the background run has not produced this CPU output yet."""
        if self.waiting and self.executor.missing(path, call):
            self.running.add(self.page)
            raise StillRunning(render.running(name, self.lang))

    def fail(self, snippet: str, message: str) -> str:
        self.failures.append(Failure(self.lang, self.page, snippet, message))
        return render.failure(message, self.lang)

    def render(self, include: Include) -> str:
        """Markdown for one include; a failure is recorded and rendered, never raised."""
        self.rendered += 1
        name = f"{PACKAGE}/{include.path}" + (f":{include.call}()" if include.call else "")
        try:
            return self._render(include)
        except StillRunning as notice:
            return str(notice)
        except SnippetError as error:
            return self.fail(name, str(error))
        except Exception as error:  # noqa: BLE001 - a machinery bug must fail the page too
            import traceback

            return self.fail(name, f"engine error: {error!r}\n{traceback.format_exc()}")

    def _render(self, include: Include) -> str:
        path = snippet_path(self.root, include.path)
        parts = []
        if include.show in ("both", "code"):
            parts.append(render.code(part_source(path, include.part), f"{PACKAGE}/{include.path}"))
        if include.show in ("both", "output") and include.call:
            parts.append(self._output(path, include.call, f"{PACKAGE}/{include.path}:{include.call}()", include.raw))
        return "\n".join(parts)

    def built_label(self, path: Path, lang: str) -> str:
        """The CPU label, or the provenance of the GPU recording the output was drawn from."""
        drawn = recordings.drawn_from(self.root, path)
        if drawn is not None:
            return render.drawn_label(lang, drawn.provenance)
        return render.built_label(lang, self.executor.environment, uses_triton(self.root, path))

    def _stale(self, path: Path, call: str) -> bool:
        """Whether the recording shown is stale: only while authoring, where a stale one is shown at all."""
        return recordings.stale_reason(self.root, path, call) is not None

    def _output(self, path: Path, call: str, name: str, raw: bool) -> str:
        devices = declarations(path).devices
        cpu = gpu = None
        if "cpu" in devices:
            self.require(path, call, name)
            result = self.executor.run(path, call)
            if not result.ok:
                raise SnippetError(f"{result.error.rstrip()}\n--- output before the failure ---\n{result.output}")
            try:
                _hold_claims(path, call, claims.Output(result.output, "cpu", self.executor.environment))
            except SnippetError:
                self.executor.forget(path, call)  # an output that breaks its claims is not kept for later builds
                raise
            for recorded, recorded_call in recordings.read_calls(self.root, path):  # what it was drawn from
                if (drawn := recordings.current(self.root, recorded, recorded_call)) is not None:
                    _hold_claims(recorded, recorded_call, claims.Output(drawn.output, "cuda", drawn.provenance),
                                 self._stale(recorded, recorded_call))
            cpu = render.output(result.output, self.built_label(path, self.lang), self.lang, raw)
        if "cuda" in devices:
            recording = recordings.current(self.root, path, call)
            if recording is None:
                return (cpu or "") + render.pending(name, self.lang)
            _hold_claims(path, call, claims.Output(recording.output, "cuda", recording.provenance),
                         self._stale(path, call))
            gpu = render.output(recording.output, render.recorded_label(self.lang, recording.provenance), self.lang, raw)
            if cpu:
                return render.tabs(cpu, gpu, recording.provenance["gpu"], self.lang)
        if cpu is None and gpu is None:
            raise SnippetError(f"{name} declares no device this site can show: {devices}")
        return cpu or gpu


def _hold_claims(path: Path, call: str, output: claims.Output, stale: bool = False) -> None:
    """A page never shows an output that contradicts what the page says about it. The one exception is
    a stale recording shown while authoring (NMB_PENDING_RECORDINGS=1): the output of code that has
    changed since, which claims written for the new code need not fit; what they say of it is logged."""
    false = claims.check(path, call, output)
    if false and stale:
        log.info("engine: authoring mode, claims that the stale recording breaks (re-record it):\n%s", "\n".join(false))
    elif false:
        raise SnippetError("\n".join(false))


def page_signature(root: Path, markdown: str) -> str:
    """What a page's outputs depend on: its snippets' source hashes and their GPU recordings."""
    digest = hashlib.sha256()
    for include in page_includes(markdown):
        path = snippet_path(root, include.path)
        digest.update(f"{include}:{source_hash(root, path)}".encode())
        digest.update(path.read_bytes())  # its claims too, which the source hash leaves out
        if include.call and "cuda" in declarations(path).devices:
            recording = recordings.recording_path(root, path, include.call)
            digest.update(recording.read_bytes() if recording.is_file() else b"<none>")
    return digest.hexdigest()


def site_calls(root: Path, docs: Path) -> list[tuple[Path, str]]:
    """(snippet file, function) of every CPU output the pages under `docs` show, in page order; includes
    that cannot be read are left to the page render to report."""
    calls = []
    for page in sorted(docs.rglob("*.md")):
        try:
            for include in page_includes(page.read_text(encoding="utf-8")):
                if include.call and include.show in ("both", "output"):
                    path = snippet_path(root, include.path)
                    if "cpu" in declarations(path).devices:
                        calls.append((path, include.call))
        except (IncludeError, SnippetError):
            continue
    return list(dict.fromkeys(calls))


_site: Site | None = None


def activate(site: Site | None) -> None:
    global _site
    _site = site


def current() -> Site | None:
    return _site


def snippet(path: str, part: str | None = None, call: str | None = "main", show: str = "both",
            raw: bool = False) -> str:
    """Markdown showing a snippet's code and the output of calling one of its functions."""
    if _site is None:
        raise RuntimeError("snippet() runs only inside a build (engine.hooks activates it)")
    return _site.render(Include(path, part, call, show, raw))
