"""Run a snippet call at most once: memory cache, then disk cache, then a real run."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import time
import traceback
from dataclasses import dataclass, field
from functools import partial
from importlib import metadata
from pathlib import Path

from engine.base import atomic
from engine.source import numerics
from engine.run import schedule
from engine.run.progress import Progress
from engine.run.schedule import ALONE, HERE, RANKS, Job
from engine.base.settings import knob
from engine.run.forkserver import ForkServer
from engine.run.runner import Result, child_env, mask_addresses, run_in_process, run_in_subprocess
from engine.source.sources import (SnippetError, compiles, declarations, measures_time, module_name, source_hash,
                                   starts_processes, starts_ranks)

log = logging.getLogger("mkdocs.engine")
CACHE_SCHEMA = "2"  # bump when what is stored for a run changes
# Idle OpenMP threads sleep instead of spinning (OMP_WAIT_POLICY, set by the build and the tests): calls
# run side by side on few cores, where a spinning thread takes a core from one that works. Thread
# counts, and so every output but timings, stay the same.
SLEEPING_OPENMP = "PASSIVE"


def package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


def build_environment() -> dict[str, str]:
    """The versions a CPU build's outputs depend on (read without importing torch)."""
    return {
        "python": platform.python_version(),
        "torch": package_version("torch"),
        "triton": package_version("triton"),
        "device": "cpu",
        "kernels": numerics.KERNELS,
        "numerics": " ".join(f"{k}={v}" for k, v in sorted(numerics.PINNED.items())),
    }


def jobs() -> int:
    """How many snippet calls run side by side: NMB_JOBS, else one per core (at most 4)."""
    return max(1, int(knob("NMB_JOBS") or min(4, os.cpu_count() or 1)))


@dataclass
class Executor:
    """Executes snippet calls for one project root, caching results on disk."""

    root: Path
    cache_dir: Path
    memory: dict[str, Result] = field(default_factory=dict)
    executed: list[str] = field(default_factory=list)
    timings: dict[str, dict] = field(default_factory=dict)  # call -> {"seconds", "kind"} of each execution
    environment: dict[str, str] = field(default_factory=build_environment)

    def key(self, path: Path, call: str) -> str:
        parts = [CACHE_SCHEMA, source_hash(self.root, path), module_name(self.root, path), call,
                 repr(declarations(path)), json.dumps(self.environment, sort_keys=True)]
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]

    def name(self, path: Path, call: str) -> str:
        return f"{module_name(self.root, path)}.{call}"

    def cached(self, path: Path, call: str) -> Result | None:
        """The result from memory or disk, or None; an entry that cannot be read is a miss, said in one line."""
        key = self.key(path, call)
        if key in self.memory:
            return self.memory[key]
        stored = self.cache_dir / f"{key}.json"
        if not stored.is_file():
            return None
        try:
            output = json.loads(stored.read_text(encoding="utf-8"))["output"]
            if not isinstance(output, str):
                raise TypeError(f"output is {type(output).__name__}, not str")
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
            log.info("engine: cache entry %s of %s() unreadable (%s): running it again",
                     stored.name, self.name(path, call), error)
            return None
        self.memory[key] = Result(output)
        return self.memory[key]

    def run(self, path: Path, call: str) -> Result:
        """The result of `call()` in the snippet at `path`, executing only on a cache miss."""
        result = self.cached(path, call)
        return self._compute(path, call) if result is None else result

    def forget(self, path: Path, call: str) -> None:
        """Drop the call's entry from disk (this build keeps its result in memory): the next build runs it again."""
        (self.cache_dir / f"{self.key(path, call)}.json").unlink(missing_ok=True)

    def _compute(self, path: Path, call: str, runner=None, started: float | None = None) -> Result:
        """Execute the call and keep its result: in memory, and on disk when it succeeded."""
        result = self._execute(path, call, runner, started)
        key = self.key(path, call)
        if result.ok:
            atomic.write_text(self.cache_dir / f"{key}.json", json.dumps({"output": result.output}))
        self.memory[key] = result
        return result

    def prefetch(self, calls: list[tuple[Path, str]], expected: dict[str, float] | None = None) -> None:
        """Execute every call not cached yet, before any page renders, `jobs()` at a time (engine/run/schedule.py):
        in-process calls one after another in this process, the calls that start processes last; isolated
        ones meanwhile, the likely longest first, each in a fork of one fork server, never two that start
        ranks at once. This process starts no thread: an in-process call (a profiler, say) sees only itself.
        A call that reads a clock runs last, with nothing beside it, in a fresh interpreter. Failures are
        kept in memory for the page that shows the call to report."""
        todo = [c for c in dict.fromkeys(calls) if self.missing(*c)]
        if not todo:
            return
        alone = [c for c in todo if measures_time(self.root, c[0])]
        multi = {c for c in todo if starts_processes(self.root, c[0])}
        # In this process, the calls that start processes last: this lane blocks while a call runs, and
        # the fork server is still importing when the first calls begin.
        in_process = sorted((c for c in todo if c not in alone and not declarations(c[0]).isolate),
                            key=lambda c: c in multi)
        isolated = sorted((c for c in todo if c not in alone and declarations(c[0]).isolate),
                          key=lambda c: -declarations(c[0]).timeout)  # the likely longest first
        compiler = any(compiles(self.root, path) for path, _ in todo if declarations(path).isolate)
        progress = Progress(len(todo), jobs(), expected or {}, kinds={self.name(*c): self.kind(c[0]) for c in todo})
        progress.queue([self.name(*c) for c in in_process + isolated + alone])
        server = ForkServer(self.root, compiler=compiler) if isolated else None  # it imports while calls run here
        work = ([Job(self.name(*c), partial(self._blocking, self._in_process, progress, *c), frozenset({HERE}))
                 for c in in_process]
                + [Job(self.name(*c), partial(self._forked, server, progress, *c),
                       frozenset({RANKS}) if starts_ranks(self.root, c[0]) else frozenset()) for c in isolated]
                + [Job(self.name(*c), partial(self._blocking, self._timed, progress, *c), frozenset({ALONE}))
                   for c in alone])  # in a fresh interpreter each: without MKL's slow branch (numerics)
        try:
            failed = schedule.run(work, jobs())
        finally:
            progress.close()
            if server is not None:
                server.close()
        if failed:  # an engine error (a full disk, say), raised once every lane has ended
            raise next(iter(failed.values()))

    def _blocking(self, runner, progress: Progress, path: Path, call: str, lane: int | None) -> None:
        """A call run to its end while this process waits: in it, or in a fresh interpreter."""
        progress.start(self.name(path, call))
        self._compute(path, call, runner)
        progress.finish(self.name(path, call))

    def _forked(self, server: ForkServer, progress: Progress, path: Path, call: str, lane: int | None):
        """An isolated call in a fork of `server`: it waits, without holding this process, for the server's
        imports, then for the call."""
        if not server.ready():
            yield server
        progress.start(self.name(path, call))
        running = server.submit(module_name(self.root, path), call, declarations(path).timeout)
        yield running
        self._compute(path, call, lambda *_: running.result(), running.started)
        progress.finish(self.name(path, call))

    def missing(self, path: Path, call: str) -> bool:
        """Not in the cache (a call whose snippet cannot be read counts as present: its page reports it)."""
        try:
            return self.cached(path, call) is None
        except SnippetError:
            return False  # the page that shows the call reports it

    def kind(self, path: Path) -> str:
        """multi-process (it starts processes of its own), isolated or in-process."""
        return ("multi-process" if starts_processes(self.root, path) else
                "isolated" if declarations(path).isolate else "in-process")

    def _in_process(self, module: str, call: str, timeout: float) -> Result:
        return run_in_process(self.root, module, call, timeout)

    def _fresh(self, module: str, call: str, timeout: float) -> Result:
        return run_in_subprocess(self.root, module, call, timeout)

    def _timed(self, module: str, call: str, timeout: float) -> Result:
        """A call that reads a clock: a fresh interpreter with the pins but MKL's slow branch."""
        return run_in_subprocess(self.root, module, call, timeout,
                                 numerics.timed_environment(child_env(self.root)))

    def _execute(self, path: Path, call: str, runner=None, started: float | None = None) -> Result:
        settings = declarations(path)
        module = module_name(self.root, path)
        start = time.perf_counter() if started is None else started
        if runner is None:
            runner = self._fresh if settings.isolate else self._in_process
        try:
            result = runner(module, call, settings.timeout)
        except Exception:  # noqa: BLE001 - the page that shows the call reports it
            result = Result("", f"engine error while running {module}.{call}():\n{traceback.format_exc()}")
        result.output = mask_addresses(result.output)
        seconds = time.perf_counter() - start
        kind = self.kind(path)
        self.executed.append(f"{module}.{call}")
        self.timings[f"{module}.{call}"] = {"seconds": round(seconds, 2), "kind": kind}
        log.info("engine: ran %s.%s() in %.1f s%s", module, call, seconds, "" if result.ok else " (failed)")
        return result
